package dev.arbiter.specs;

import io.cucumber.gherkin.GherkinParser;
import io.cucumber.messages.types.Envelope;
import io.cucumber.messages.types.Feature;
import io.cucumber.messages.types.Pickle;
import io.cucumber.messages.types.PickleStep;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The feature files under {@code features/}, read with Cucumber's own Gherkin parser. */
final class FeatureFiles {
    static final Path ROOT = Path.of("features");

    /** One executed step: its text (examples filled in) and where it comes from. */
    record Step(String text, String file, String scenario) {
        @Override
        public String toString() {
            return "\"" + text + "\" (" + file + ", " + scenario + ")";
        }
    }

    private FeatureFiles() {}

    static List<Path> files() {
        try (Stream<Path> walk = Files.walk(ROOT)) {
            return walk.filter(p -> p.toString().endsWith(".feature")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every scenario as Cucumber runs it: outlines expanded, backgrounds included. */
    static List<Pickle> pickles() {
        return envelopes().stream().flatMap(e -> e.getPickle().stream()).toList();
    }

    static List<Feature> features() {
        return envelopes().stream().flatMap(e -> e.getGherkinDocument().stream())
                .flatMap(d -> d.getFeature().stream()).toList();
    }

    static List<Step> steps() {
        List<Step> out = new ArrayList<>();
        for (Pickle p : pickles()) {
            for (PickleStep s : p.getSteps()) out.add(new Step(s.getText(), Path.of(p.getUri()).getFileName().toString(), p.getName()));
        }
        return out;
    }

    private static List<Envelope> envelopes() {
        GherkinParser parser = GherkinParser.builder().includeSource(false).build();
        List<Envelope> out = new ArrayList<>();
        for (Path f : files()) {
            try (Stream<Envelope> envelopes = parser.parse(f)) {
                for (Envelope e : envelopes.toList()) {
                    e.getParseError().ifPresent(err -> {
                        throw new AssertionError(f + ": " + err.getMessage());
                    });
                    out.add(e);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return out;
    }
}
