package dev.arbiter.specs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cucumber.messages.types.Feature;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The shape of {@code features/}: enough scenarios, outlines, one story per concern, each with its description. */
class FeatureFilesTest {
    @Test
    void thereAreAtLeastThirtyScenariosIncludingOutlines() {
        assertTrue(FeatureFiles.pickles().size() >= 30, FeatureFiles.pickles().size() + " scenarios");
        assertTrue(FeatureFiles.features().stream().flatMap(f -> f.getChildren().stream())
                .flatMap(c -> c.getScenario().stream()).anyMatch(s -> !s.getExamples().isEmpty()), "no Scenario Outline");
    }

    @Test
    void everyPolicyConcernHasItsStory() {
        Set<String> files = new TreeSet<>();
        FeatureFiles.files().forEach(f -> files.add(f.getFileName().toString()));
        for (String concern : List.of("fair-share", "admission", "gang", "priority", "preemption", "reclaim", "victims",
                "order", "churn", "seed-story")) {
            assertTrue(files.contains(concern + ".feature"), "no features/" + concern + ".feature in " + files);
        }
    }

    @Test
    void everyFeatureSaysWhichPolicyItPinsDown() {
        for (Feature f : FeatureFiles.features()) {
            assertTrue(f.getDescription() != null && f.getDescription().strip().length() > 40,
                    "feature \"" + f.getName() + "\" needs a short description of its policy");
        }
    }
}
