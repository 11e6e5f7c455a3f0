/**
 * The Gherkin acceptance specs' step definitions and their scenario world. They live in main code because
 * {@code arbiter verify} runs them from the shipped jar against a candidate rules folder.
 *
 * <p>How a scenario runs: setup steps ({@code Given}/{@code When}) add Kubernetes objects to a {@link
 * dev.arbiter.specs.ScenarioWorld}; the first {@code Then} renders them as YAML, loads it with the same manifest
 * loader {@code arbiter simulate} uses, and runs the real simulator on the rules folder named by the system property
 * {@code arbiter.rules} (default {@code rules}). Nothing is mocked. {@code Given} objects are present from the start;
 * {@code When} objects arrive once the state before them has settled. The outcome steps then read the final
 * {@link dev.arbiter.sim.SimulationResult}.
 *
 * <p>The {@link dev.arbiter.specs.SpecListener} plugin must be registered with Cucumber: it tells the steps whether
 * they run as a {@code Given}, {@code When} or {@code Then}. The vocabulary is documented in
 * {@code docs/writing-specs.md}.
 */
package dev.arbiter.specs;
