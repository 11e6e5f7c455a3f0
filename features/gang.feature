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
    And "train" is pending because gang of 4 needs 4 tasks, 3 placeable: 0/4 nodes are available: 4 Insufficient nvidia.com/gpu
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
    Then "train" is pending because 1 placeable: 0/3 nodes are available: 1 node(s) were unschedulable, 2 Insufficient nvidia.com/gpu
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
    Then "roles" is pending because role worker needs 2, 1 placeable
    And 0 pods of "roles" are running
    And 16 GPUs are idle

  Scenario: An elastic Volcano Job starts with its minimum although every role has a minimum of its own
    Volcano's job controller writes a minimum for every task of a Volcano Job (here 1 master and 3 workers) and the
    job's own minAvailable (2) into the PodGroup. The roles' minimums add up to more than the job's, so only the job's
    minimum counts, as in Volcano: with room for 2 pods the job starts. Its pods carry their role as a label only.
    Given a cluster of 2 nodes with 8 GPUs each
    And the manifests:
      """
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: PodGroup
      metadata: {name: vcjob, namespace: tenanta}
      spec: {minMember: 2, minTaskMember: {master: 1, worker: 3}}
      ---
      apiVersion: v1
      kind: List
      items:
        - {apiVersion: v1, kind: Pod, metadata: {name: vcjob-master-0, namespace: tenanta, annotations: {scheduling.k8s.io/group-name: vcjob}, labels: {volcano.sh/task-spec: master}},
           spec: {schedulerName: volcano, containers: [{name: main, image: trainer, resources: {requests: {nvidia.com/gpu: "8"}}}]}}
        - {apiVersion: v1, kind: Pod, metadata: {name: vcjob-worker-0, namespace: tenanta, annotations: {scheduling.k8s.io/group-name: vcjob}, labels: {volcano.sh/task-spec: worker}},
           spec: {schedulerName: volcano, containers: [{name: main, image: trainer, resources: {requests: {nvidia.com/gpu: "8"}}}]}}
        - {apiVersion: v1, kind: Pod, metadata: {name: vcjob-worker-1, namespace: tenanta, annotations: {scheduling.k8s.io/group-name: vcjob}, labels: {volcano.sh/task-spec: worker}},
           spec: {schedulerName: volcano, containers: [{name: main, image: trainer, resources: {requests: {nvidia.com/gpu: "8"}}}]}}
        - {apiVersion: v1, kind: Pod, metadata: {name: vcjob-worker-2, namespace: tenanta, annotations: {scheduling.k8s.io/group-name: vcjob}, labels: {volcano.sh/task-spec: worker}},
           spec: {schedulerName: volcano, containers: [{name: main, image: trainer, resources: {requests: {nvidia.com/gpu: "8"}}}]}}
      """
    Then "vcjob" is running
    And 2 pods of "vcjob" are running
    And pod "tenanta/vcjob-master-0" is running

  Scenario: Pods that ask for no resources are scheduled like any other
    BestEffort pods (no requests at all) take only a pod slot on a node; no queue share holds them back.
    Given a cluster of 1 node with 8 GPUs each
    And tenant A runs a job "gpu-hog" of 1 pod with 8 GPUs each
    When tenant A submits a job "helpers" of 3 pods with 0 GPUs each
    Then "helpers" is running
    And 3 pods of "helpers" are running

  Scenario: A gang left half-bound is completed once there is room
    One member of a gang of 2 already runs (say, its bind succeeded and its partner's failed); there is a free node.
    The other member binds: the running one is not counted twice against the queue.
    Given a cluster of 2 nodes with 8 GPUs each
    And the manifests:
      """
      apiVersion: scheduling.volcano.sh/v1beta1
      kind: PodGroup
      metadata: {name: pair, namespace: tenanta}
      spec: {minMember: 2}
      ---
      apiVersion: v1
      kind: List
      items:
        - {apiVersion: v1, kind: Pod, metadata: {name: pair-0, namespace: tenanta, annotations: {scheduling.k8s.io/group-name: pair}},
           spec: {schedulerName: volcano, nodeName: node-1, containers: [{name: main, image: trainer, resources: {requests: {nvidia.com/gpu: "8"}}}]}}
        - {apiVersion: v1, kind: Pod, metadata: {name: pair-1, namespace: tenanta, annotations: {scheduling.k8s.io/group-name: pair}},
           spec: {schedulerName: volcano, containers: [{name: main, image: trainer, resources: {requests: {nvidia.com/gpu: "8"}}}]}}
      """
    Then "pair" is running
    And 2 pods of "pair" are running
    And 0 GPUs are idle
