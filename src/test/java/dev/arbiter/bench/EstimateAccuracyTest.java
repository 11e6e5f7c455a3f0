package dev.arbiter.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code bench --estimates} on a small generated fleet: with exact estimates every forecast start is the simulated
 * one; with noise they differ, and the table says by how much.
 */
class EstimateAccuracyTest {
    @Test
    void exactEstimatesAreExactOnAGeneratedFleet() {
        StringWriter progress = new StringWriter();
        List<EstimateAccuracy.Row> rows = new EstimateAccuracy(Path.of("rules"), 10, 5_000, new PrintWriter(progress))
                .run(List.of(new EstimateAccuracy.Fleet(20, 300, 5, 0), new EstimateAccuracy.Fleet(20, 300, 5, 0.5)));
        EstimateAccuracy.Row exact = rows.get(0), noisy = rows.get(1);
        assertTrue(exact.pending() > 20, "a fleet with a line of waiting jobs: " + exact);
        assertEquals(exact.estimated(), exact.compared(), "every estimated job started in the simulation");
        assertEquals(exact.compared(), exact.exact(), "and at its estimated start");
        assertEquals(0.0, exact.meanAbsErrorSeconds());
        assertEquals(0, exact.noneStarted(), "a job with none did not start either");
        assertTrue(noisy.meanAbsErrorSeconds() > 0, "noise shows: " + noisy);
        assertTrue(EstimateAccuracy.table(rows).contains("MAE"));
    }
}
