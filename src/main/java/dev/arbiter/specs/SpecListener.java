package dev.arbiter.specs;

import io.cucumber.gherkin.GherkinDialect;
import io.cucumber.gherkin.GherkinDialects;
import io.cucumber.messages.types.StepKeywordType;
import io.cucumber.plugin.ConcurrentEventListener;
import io.cucumber.plugin.event.EventPublisher;
import io.cucumber.plugin.event.PickleStepTestStep;
import io.cucumber.plugin.event.TestCaseStarted;
import io.cucumber.plugin.event.TestStepStarted;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A Cucumber plugin that follows the run so the steps know two things Cucumber does not hand to step definitions:
 * whether the step being executed is a {@code Given}, {@code When} or {@code Then} ({@code And}/{@code But}/{@code *}
 * continue the previous one, in any Gherkin language), and how many scenarios have started (so {@code arbiter verify}
 * can refuse a run that checked nothing).
 *
 * <p>Register it with {@code --plugin dev.arbiter.specs.SpecListener} (the CLI) or the {@code cucumber.plugin}
 * configuration parameter (JUnit Platform). Events arrive on the thread that runs the step, so the current keyword is
 * kept per thread.
 */
public final class SpecListener implements ConcurrentEventListener {
    /** What a step does in its scenario. */
    public enum Kind { GIVEN, WHEN, THEN }

    private static final ThreadLocal<Kind> CURRENT = new ThreadLocal<>();
    private static final ThreadLocal<String> LANGUAGE = ThreadLocal.withInitial(() -> "en");
    private static final AtomicLong SCENARIOS_STARTED = new AtomicLong();

    @Override
    public void setEventPublisher(EventPublisher publisher) {
        publisher.registerHandlerFor(TestCaseStarted.class, this::scenarioStarted);
        publisher.registerHandlerFor(TestStepStarted.class, this::stepStarted);
    }

    private void scenarioStarted(TestCaseStarted event) {
        SCENARIOS_STARTED.incrementAndGet();
        CURRENT.remove();
        LANGUAGE.set(event.getTestCase().getLanguage());
    }

    private void stepStarted(TestStepStarted event) {
        if (!(event.getTestStep() instanceof PickleStepTestStep step)) return;
        Kind kind = kindOf(step.getStep().getKeyword(), LANGUAGE.get());
        if (kind != null) CURRENT.set(kind);
    }

    /** GIVEN, WHEN or THEN for a keyword such as "Given " or "Dann "; null for a conjunction ("And ", "* "). */
    static Kind kindOf(String keyword, String language) {
        GherkinDialect dialect = GherkinDialects.getDialect(language)
                .orElseGet(() -> GherkinDialects.getDialect("en").orElseThrow());
        Set<StepKeywordType> types = dialect.getStepKeywordTypesSet(keyword);
        if (types == null || types.size() != 1) return null;
        return switch (types.iterator().next()) {
            case CONTEXT -> Kind.GIVEN;
            case ACTION -> Kind.WHEN;
            case OUTCOME -> Kind.THEN;
            default -> null;
        };
    }

    /**
     * The kind of the step now running on this thread.
     *
     * @throws IllegalStateException when the plugin is not registered, so no step can silently misplace an object
     */
    static Kind currentStep() {
        Kind k = CURRENT.get();
        if (k == null) {
            throw new IllegalStateException("the steps cannot tell Given from When: register the Cucumber plugin "
                    + SpecListener.class.getName() + " (--plugin " + SpecListener.class.getName() + ")");
        }
        return k;
    }

    /** How many scenarios have started in this JVM; compare before and after a run. */
    public static long scenariosStarted() {
        return SCENARIOS_STARTED.get();
    }
}
