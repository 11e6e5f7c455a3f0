Feature: Admission: which jobs may enter their queue and compete for GPUs
  Before a job competes for GPUs it is admitted (enqueued): in job order, while its minimum resources fit the room
  its queue has left under its capability. A closed queue admits nothing, a job naming a queue that does not exist
  waits with that reason, and a job that needs more than the whole cluster is never admitted. A resource the job does
  not ask for never blocks it.

  Background:
    Given a cluster of 2 nodes with 8 GPUs each

  Scenario: A job that fits its open queue is admitted and starts
    Given queue "research" with weight 1
    And tenant R submits a job "train" of 2 pods with 8 GPUs each in queue "research"
    Then "train" is admitted
    And "train" is running

  Scenario: A closed queue admits nothing
    Given queue "retired" that is closed
    And tenant R submits a job "train" of 1 pod with 8 GPUs each in queue "retired"
    Then "train" is not admitted
    And "train" is pending because queue "retired" is not open
    And 16 GPUs are idle

  Scenario: A job naming a queue that does not exist waits and says so
    Given tenant R submits a job "lost" of 1 pod with 8 GPUs each in queue "nope"
    Then "lost" is not admitted
    And "lost" is pending because queue "nope" does not exist

  Scenario: A job that needs more than the whole cluster is never admitted
    Given tenant R submits a job "huge" of 3 pods with 8 GPUs each
    Then "huge" is not admitted
    And "huge" is pending because minResources exceed the cluster

  Scenario: A job larger than its queue's capability waits
    Given queue "small" with weight 1 and a capability of 8 GPUs
    And tenant R submits a job "big" of 2 pods with 8 GPUs each in queue "small"
    Then "big" is not admitted
    And "big" is pending because queue "small" capability exhausted

  Scenario: Jobs are admitted in order while the queue's capability lasts
    Given the queues:
      | queue | weight | capability |
      | q     | 1      | 8          |
    And the jobs:
      | tenant | name   | pods | GPUs each | queue |
      | A      | first  | 1    | 8         | q     |
      | A      | second | 1    | 8         | q     |
    Then "first" is running
    And "second" is not admitted
    And "second" is pending because capability exhausted

  Scenario: A resource the job does not ask for never blocks it
    Given the manifests:
      """
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: Queue
      metadata:
        name: cpu-only
      spec:
        weight: 1
        capability:
          nvidia.com/gpu: "0"
          cpu: "8"
      ---
      apiVersion: v1
      kind: Pod
      metadata:
        name: etl
        namespace: tenanta
        annotations:
          scheduling.volcano.sh/queue-name: cpu-only
      spec:
        schedulerName: volcano
        containers:
          - name: etl
            image: registry.example.com/etl:1.0
            resources:
              requests:
                cpu: "4"
      """
    Then "etl" is running
