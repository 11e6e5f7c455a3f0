Feature: Gang scheduling: a distributed job starts all together or not at all
  A PodGroup's pods bind only when at least minMember of them (and minTaskMember of each role) can run in the same
  cycle. Otherwise nothing binds, the tentative placements are released for the next job, and the job says how many
  of its pods could have been placed and why the rest could not. An elastic job starts with its minimum and takes
  whatever else fits.

  Scenario: A gang that fits starts with every member
    Given a cluster of 4 nodes with 8 GPUs each
    And tenant A submits a job "train" of 4 pods with 8 GPUs each
    Then "train" is running
    And 4 pods of "train" are running

  Scenario: A gang that does not fit binds nothing and says why
    Given a cluster of 4 nodes with 8 GPUs each
    And queue "a" with weight 1
    And queue "b" with weight 1
    And tenant B runs a job "other" of 1 pod with 8 GPUs each in queue "b"
    When tenant A submits a job "train" of 4 pods with 8 GPUs each in queue "a"
    Then "train" is admitted
    And "train" is pending because gang of 4 needs 4 tasks, 3 placeable: 0/4 nodes available: 4 insufficient nvidia.com/gpu
    And 0 pods of "train" are running
    And 24 GPUs are idle

  Scenario: The placements a waiting gang released go to the next job
    Given a cluster of 3 nodes with 8 GPUs each
    And tenant A submits a job "big" of 4 pods with 8 GPUs each
    And tenant A submits a job "small" of 2 pods with 8 GPUs each
    Then "small" is running
    And "big" is pending
    And 8 GPUs are idle

  Scenario: A waiting gang starts whole once the cluster grows
    Given a cluster of 3 nodes with 8 GPUs each
    And tenant A submits a job "train" of 4 pods with 8 GPUs each
    When 1 more node with 8 GPUs joins the cluster
    Then "train" is running
    And 4 pods of "train" are running

  Scenario: An elastic job starts with its minimum and takes what else fits
    Given a cluster of 3 nodes with 8 GPUs each
    And tenant A runs a PyTorchJob "elastic" with 1 master and 3 workers of 8 GPUs each, needing at least 2 pods
    Then 3 pods of "elastic" are running
    And the master of "elastic" is running

  Scenario: A LeaderWorkerSet group is one gang
    Given a cluster of 2 nodes with 8 GPUs each
    And queue "a" with weight 1
    And queue "b" with weight 1
    And tenant B runs a pod "other" with 8 GPUs in queue "b"
    When tenant A submits a LeaderWorkerSet "serve" of size 2 with 8 GPUs per pod in queue "a"
    Then "serve" is pending because gang of 2 needs 2 tasks, 1 placeable
    And 8 GPUs are idle

  Scenario: Cordoned nodes take no gang members
    Given the nodes:
      | node   | GPUs | cordoned |
      | gpu-a  | 8    | no       |
      | gpu-b  | 8    | no       |
      | gpu-c  | 8    | yes      |
    And queue "a" with weight 1
    And queue "b" with weight 1
    And tenant B runs a job "other" of 1 pod with 8 GPUs each in queue "b"
    When tenant A submits a job "train" of 2 pods with 8 GPUs each in queue "a"
    Then "train" is pending because 1 placeable: 0/3 nodes available: 2 insufficient nvidia.com/gpu, 1 node(s) cordoned
    And 8 GPUs are idle

  Scenario: Every role must reach its own minimum
    The PodGroup asks for 2 pods in all, of which 2 must be workers; there is room for 2 pods, but the master comes
    first, so only 1 worker could be placed.
    Given a cluster of 2 nodes with 8 GPUs each
    And the manifests:
      """
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: PodGroup
      metadata:
        name: roles
        namespace: tenanta
      spec:
        minMember: 2
        minTaskMember:
          worker: 2
      ---
      apiVersion: v1
      kind: List
      items:
        - apiVersion: v1
          kind: Pod
          metadata:
            name: roles-master-0
            namespace: tenanta
            annotations: {scheduling.k8s.io/group-name: roles, volcano.sh/task-spec: master}
          spec:
            schedulerName: volcano
            containers: [{name: main, image: trainer, resources: {requests: {nvidia.com/gpu: "8"}}}]
        - apiVersion: v1
          kind: Pod
          metadata:
            name: roles-worker-0
            namespace: tenanta
            annotations: {scheduling.k8s.io/group-name: roles, volcano.sh/task-spec: worker}
          spec:
            schedulerName: volcano
            containers: [{name: main, image: trainer, resources: {requests: {nvidia.com/gpu: "8"}}}]
        - apiVersion: v1
          kind: Pod
          metadata:
            name: roles-worker-1
            namespace: tenanta
            annotations: {scheduling.k8s.io/group-name: roles, volcano.sh/task-spec: worker}
          spec:
            schedulerName: volcano
            containers: [{name: main, image: trainer, resources: {requests: {nvidia.com/gpu: "8"}}}]
      """
    Then "roles" is pending
    And 0 pods of "roles" are running
    And 16 GPUs are idle
