package dev.arbiter.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.fields;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;

/**
 * Which room of the code may import what, checked on the compiled classes (ArchUnit), so that a change that crosses a
 * wall fails the build with the offending call named. The rules are in {@code docs/architecture.md}; each is also shown
 * failing on a planted violation (classes under {@code src/test} that break it on purpose, never part of the product).
 */
class ArchitectureTest {
    private static final String ENGINE = "dev.arbiter.engine";

    /** The product's classes: {@code target/classes}, without tests and jars. */
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_JARS)
            .importPackages("dev.arbiter");

    /** Only {@code engine.rules} reaches Drools and KIE: the rest of the code sees the policy as plain data. */
    static final ArchRule ONLY_RULES_REACH_DROOLS = noClasses().that().resideOutsideOfPackage(ENGINE + ".rules..")
            .should().dependOnClassesThat().resideInAnyPackage("org.kie..", "org.drools..")
            .because("the policy engine is one room (engine.rules); the steps read its decisions as plain data");

    /**
     * Only the rooms that talk to a cluster reach fabric8: live (the actuator and informers), runtime (hot reload of
     * rules from a ConfigMap), cli (kubeconfig options), livebench (the live benchmark), and realcluster (the harness
     * that starts a real API server and drives it; it is the live tests' and benchmarks' own client).
     */
    static final ArchRule ONLY_CLUSTER_ROOMS_REACH_FABRIC8 = noClasses().that().resideOutsideOfPackages(
                    "dev.arbiter.live..", "dev.arbiter.runtime..", "dev.arbiter.cli..", "dev.arbiter.livebench..",
                    "dev.arbiter.realcluster..")
            .should().dependOnClassesThat().resideInAnyPackage("io.fabric8..")
            .because("the engine, the simulator and the authoring tools never need a cluster client");

    /** The live scheduler stands on its own: it never reaches the simulator or the authoring tools. */
    static final ArchRule LIVE_STANDS_ALONE = noClasses().that().resideInAPackage("dev.arbiter.live..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.arbiter.sim..", "dev.arbiter.authoring..")
            .because("what runs in the cluster must not depend on what reports on a simulation");

    /**
     * The engine's rooms, bottom up: the cycle's working cluster (state), node fitting (placement), the victim search
     * (victims), the rules and the policy they decide (rules), what is kept across cycles (kept), and the scheduler and
     * its steps (cycle). A room reaches only rooms below it.
     */
    static final ArchRule ENGINE_ROOMS_IMPORT_DOWNWARD = layeredArchitecture().consideringOnlyDependenciesInLayers()
            .withOptionalLayers(true)
            .layer("state").definedBy(ENGINE + ".state..")
            .layer("placement").definedBy(ENGINE + ".placement..")
            .layer("victims").definedBy(ENGINE + ".victims..")
            .layer("rules").definedBy(ENGINE + ".rules..")
            .layer("usage").definedBy(ENGINE + ".usage..")
            .layer("kept").definedBy(ENGINE + ".kept..")
            .layer("cycle").definedBy(ENGINE + ".cycle..")
            .whereLayer("cycle").mayNotBeAccessedByAnyLayer()
            .whereLayer("kept").mayOnlyBeAccessedByLayers("cycle")
            .whereLayer("usage").mayOnlyBeAccessedByLayers("cycle")
            .whereLayer("rules").mayOnlyBeAccessedByLayers("kept", "cycle")
            .whereLayer("victims").mayOnlyBeAccessedByLayers("kept", "cycle")
            .whereLayer("placement").mayOnlyBeAccessedByLayers("victims", "kept", "cycle")
            .whereLayer("state").mayOnlyBeAccessedByLayers("placement", "victims", "rules", "usage", "kept", "cycle");

    /** What is kept across cycles is reached through methods of its face, never through its fields. */
    static final ArchRule KEPT_MEMORY_BEHIND_ITS_FACE = fields().that().areDeclaredInClassesThat()
            .resideInAPackage(ENGINE + ".kept..").should().notBePublic()
            .because("only engine.kept may change what a scheduler remembers from one cycle to the next");

    @Test
    void onlyTheRulesRoomReachesDrools() {
        ONLY_RULES_REACH_DROOLS.check(MAIN);
    }

    @Test
    void onlyTheClusterRoomsReachFabric8() {
        ONLY_CLUSTER_ROOMS_REACH_FABRIC8.check(MAIN);
    }

    @Test
    void liveNeverReachesTheSimulatorOrAuthoring() {
        LIVE_STANDS_ALONE.check(MAIN);
    }

    @Test
    void engineRoomsImportDownward() {
        ENGINE_ROOMS_IMPORT_DOWNWARD.check(MAIN);
    }

    @Test
    void keptMemoryIsBehindItsFace() {
        KEPT_MEMORY_BEHIND_ITS_FACE.check(MAIN);
    }

    /** Each rule fails on a class planted to break it: the checks are not vacuous. */
    @Test
    void everyRuleFailsOnAPlantedViolation() {
        JavaClasses planted = new ClassFileImporter().importClasses(
                dev.arbiter.engine.state.PlantedUpwardReach.class,
                dev.arbiter.live.PlantedSimulatorReach.class,
                dev.arbiter.sim.PlantedClusterClient.class,
                dev.arbiter.engine.kept.PlantedOpenMemory.class,
                dev.arbiter.engine.cycle.Scheduler.class);
        assertFails(ONLY_RULES_REACH_DROOLS, planted, "PlantedUpwardReach", "org.kie.api.KieBase");
        assertFails(ENGINE_ROOMS_IMPORT_DOWNWARD, planted, "PlantedUpwardReach", "Scheduler");
        assertFails(LIVE_STANDS_ALONE, planted, "PlantedSimulatorReach", "Simulator");
        assertFails(ONLY_CLUSTER_ROOMS_REACH_FABRIC8, planted, "PlantedClusterClient", "io.fabric8");
        assertFails(KEPT_MEMORY_BEHIND_ITS_FACE, planted, "PlantedOpenMemory", "remembered");
    }

    private static void assertFails(ArchRule rule, JavaClasses classes, String offender, String what) {
        EvaluationResult result = rule.evaluate(classes);
        assertTrue(result.hasViolation(), "the rule must fail on " + offender + ": " + rule.getDescription());
        String report = result.getFailureReport().toString();
        assertTrue(report.contains(offender) && report.contains(what), "the failure names " + offender + " and " + what
                + ":\n" + report);
    }
}
