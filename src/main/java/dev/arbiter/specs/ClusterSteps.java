package dev.arbiter.specs;

import io.cucumber.datatable.DataTable;
import io.cucumber.docstring.DocString;
import io.cucumber.java.en.Given;
import io.cucumber.java.en.When;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Setup steps for the cluster itself: nodes, the GPU resource, queues, priority classes, and raw manifests. */
public final class ClusterSteps {
    private static final Pattern PRIORITY_CLASS =
            Pattern.compile("([a-z0-9][a-z0-9.-]*) (-?\\d+)((?: \\((?:default|never preempts)\\))*)");

    private static ScenarioWorld world() {
        return ScenarioWorld.current();
    }

    // ---- nodes -----------------------------------------------------------------------------------------------------

    @Given("a cluster of {int} node(s) with {int} GPU(s) each")
    public void cluster(int count, int gpus) {
        addNodes(count, gpus);
    }

    @When("{int} more node(s) with {int} GPU(s)( each) join(s) the cluster")
    public void moreNodes(int count, int gpus) {
        addNodes(count, gpus);
    }

    private void addNodes(int count, int gpus) {
        for (int i = 0; i < count; i++) {
            world().add(new NodeDef(world().nextNodeName(), gpus, NodeDef.DEFAULT_CPU, NodeDef.DEFAULT_MEMORY, false));
        }
    }

    @Given("the nodes:")
    public void nodes(DataTable table) {
        for (Map<String, String> row : Tables.rows(table, Set.of("node", "gpus"),
                Set.of("cpu", "memory", "cordoned", "labels", "taints"))) {
            world().nextNodeName();
            world().add(new NodeDef(row.get("node"), Tables.integer(row, "gpus", 0),
                    row.getOrDefault("cpu", NodeDef.DEFAULT_CPU), row.getOrDefault("memory", NodeDef.DEFAULT_MEMORY),
                    Tables.yesNo(row, "cordoned", false), NodeDef.parseLabels(row.get("labels")),
                    NodeDef.parseTaints(row.get("taints"))));
        }
    }

    @Given("GPUs are {string}")
    public void gpusAre(String resource) {
        world().nameGpus(resource);
    }

    // ---- queues ----------------------------------------------------------------------------------------------------

    @Given("queue {string} with weight {int}")
    public void queue(String name, int weight) {
        world().add(QueueDef.named(name).weight(weight));
    }

    @Given("queue {string} with weight {int} that is reclaimable")
    public void reclaimableQueue(String name, int weight) {
        world().add(QueueDef.named(name).weight(weight).reclaimable(true));
    }

    @Given("queue {string} with weight {int} that is not reclaimable")
    public void unreclaimableQueue(String name, int weight) {
        world().add(QueueDef.named(name).weight(weight).reclaimable(false));
    }

    @Given("queue {string} with weight {int} and a capability of {int} GPU(s)")
    public void cappedQueue(String name, int weight, int gpus) {
        world().add(QueueDef.named(name).weight(weight).capability(gpus));
    }

    @Given("queue {string} with weight {int} and a guarantee of {int} GPU(s)")
    public void guaranteedQueue(String name, int weight, int gpus) {
        world().add(QueueDef.named(name).weight(weight).guarantee(gpus));
    }

    @Given("queue {string} with weight {int} that lends at most {int} GPU(s)")
    public void lendingQueue(String name, int weight, int gpus) {
        world().add(QueueDef.named(name).weight(weight).lendingLimit("GPU=" + gpus));
    }

    @Given("queue {string} with weight {int} and the lending limit {string}")
    public void lendingQueueAsWritten(String name, int weight, String value) {
        world().add(QueueDef.named(name).weight(weight).lendingLimit(value));
    }

    @Given("queue {string} with weight {int} and priority {int}")
    public void prioritisedQueue(String name, int weight, int priority) {
        world().add(QueueDef.named(name).weight(weight).priority(priority));
    }

    @Given("queue {string} with weight {int} under {string}")
    public void childQueue(String name, int weight, String parent) {
        world().add(QueueDef.named(name).weight(weight).parent(parent));
    }

    /** A queue whose stored decayed past usage is {@code gpus} GPUs at the story's start (read with a usage half-life). */
    @Given("queue {string} with weight {int} whose past usage is {int} GPU(s)")
    public void usedQueue(String name, int weight, int gpus) {
        world().add(new UsedQueue(QueueDef.named(name).weight(weight), gpus));
    }

    @Given("queue {string} that deserves {int} GPU(s)")
    public void deservingQueue(String name, int gpus) {
        world().add(QueueDef.named(name).deserved(gpus));
    }

    @Given("queue {string} that deserves {int} GPU(s) and may borrow up to {int}")
    public void deservingCappedQueue(String name, int gpus, int capability) {
        world().add(QueueDef.named(name).deserved(gpus).capability(capability));
    }

    @Given("queue {string} that deserves {int} GPU(s) and lends at most {int}")
    public void deservingLendingQueue(String name, int gpus, int lends) {
        world().add(QueueDef.named(name).deserved(gpus).lendingLimit("GPU=" + lends));
    }

    @Given("the policy pack {string}")
    public void policyPack(String folder) {
        world().usePolicy(folder);
    }

    @Given("^the scenario sets (\\S+) in policy.yaml to \"([^\"]*)\"$")
    public void policySetting(String key, String value) {
        world().useSetting(key, value);
    }

    @Given("queue {string} that is closed")
    public void closedQueue(String name) {
        world().add(QueueDef.named(name).state("Closed"));
    }

    @Given("the queues:")
    public void queues(DataTable table) {
        for (Map<String, String> row : Tables.rows(table, Set.of("queue"),
                Set.of("weight", "priority", "reclaimable", "capability", "guarantee", "state", "parent", "dequeue"))) {
            String state = row.getOrDefault("state", "Open");
            if (!state.equals("Open") && !state.equals("Closed")) {
                throw new IllegalArgumentException("column \"state\": Open or Closed, not \"" + state + "\"");
            }
            String dequeue = row.getOrDefault("dequeue", "traverse");
            if (!dequeue.equals("traverse") && !dequeue.equals("fifo")) {
                throw new IllegalArgumentException("column \"dequeue\": traverse or fifo, not \"" + dequeue + "\"");
            }
            world().add(QueueDef.named(row.get("queue")).weight(Tables.integer(row, "weight", 1))
                    .priority(Tables.integer(row, "priority", 0)).reclaimable(Tables.yesNo(row, "reclaimable", true))
                    .capability(Tables.optionalInteger(row, "capability"))
                    .guarantee(Tables.optionalInteger(row, "guarantee")).state(state)
                    .parent(row.get("parent")).dequeue(dequeue));
        }
    }

    // ---- priority classes ------------------------------------------------------------------------------------------

    /** E.g. {@code p0-critical 1000000, p1-high 10000, p2-regular 100 (default), polite 5000 (never preempts)}. */
    @Given("^priority class(?:es)? (.+)$")
    public void priorityClasses(String list) {
        for (String entry : list.split(",")) {
            Matcher m = PRIORITY_CLASS.matcher(entry.trim());
            if (!m.matches()) {
                throw new IllegalArgumentException("cannot read priority class \"" + entry.trim() + "\": write <name> <value>,"
                        + " optionally followed by (default) and/or (never preempts)");
            }
            world().add(new PriorityClassDef(m.group(1), Integer.parseInt(m.group(2)), m.group(3).contains("(default)"),
                    m.group(3).contains("(never preempts)")));
        }
    }

    // ---- time ------------------------------------------------------------------------------------------------------

    /** "a minute passes", "2 minutes pass", "30 seconds pass", "an hour passes". */
    @Given("^(a|an|\\d+) (second|minute|hour)s? pass(?:es)?$")
    public void timePasses(String amount, String unit) {
        long n = amount.startsWith("a") ? 1 : Long.parseLong(amount);
        world().pass(n * switch (unit) {
            case "second" -> 1;
            case "minute" -> 60;
            default -> 3600;
        });
    }

    // ---- controllers -----------------------------------------------------------------------------------------------

    /** Evicted pods come back pending, as a Job or a training operator recreates them: demand stays constant. */
    @Given("evicted pods come back, as their controllers recreate them")
    public void evictedPodsComeBack() {
        world().recreateEvicted();
    }

    // ---- raw manifests ---------------------------------------------------------------------------------------------

    @Given("the manifests:")
    public void manifests(DocString yaml) {
        world().addYaml(yaml.getContent());
    }

    @When("these manifests are applied:")
    public void manifestsApplied(DocString yaml) {
        world().addYaml(yaml.getContent());
    }
}
