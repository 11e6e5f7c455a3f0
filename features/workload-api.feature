Feature: The upstream Workload API: scheduling.k8s.io PodGroups are gangs too
  Kubernetes 1.37 serves scheduling.k8s.io/v1beta1 PodGroups (KEP-4671, the GenericWorkload feature gate). A pod names
  its group in spec.schedulingGroup.podGroupName; the group's schedulingPolicy is a gang of minCount pods, or basic
  (no gang). Arbiter schedules such a group as it schedules a Volcano PodGroup of minMember minCount, in the queue its
  scheduling.volcano.sh/queue-name annotation names (the default queue otherwise); the group's priority decides over
  its pods'; disruptionMode all makes the whole group go when one member is a victim. See docs/workload-api.md.

  Background:
    Given priority classes p0-critical 1000000, p2-regular 100

  Scenario: A Workload-API gang of minCount 4 starts whole when 4 fit
    Given a cluster of 4 nodes with 8 GPUs each
    When the manifests:
      """
      apiVersion: scheduling.k8s.io/v1beta1
      kind: PodGroup
      metadata: {name: train, namespace: default}
      spec: {schedulingPolicy: {gang: {minCount: 4}}}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: train-0, namespace: default}
      spec:
        schedulerName: volcano
        schedulingGroup: {podGroupName: train}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: train-1, namespace: default}
      spec:
        schedulerName: volcano
        schedulingGroup: {podGroupName: train}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: train-2, namespace: default}
      spec:
        schedulerName: volcano
        schedulingGroup: {podGroupName: train}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: train-3, namespace: default}
      spec:
        schedulerName: volcano
        schedulingGroup: {podGroupName: train}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      """
    Then "train" is running
    And 4 pods of "train" are running

  Scenario: A Workload-API gang of minCount 4 waits whole when only 3 fit
    Its PodGroup names queue "a" through the scheduling.volcano.sh/queue-name annotation, as a pod would.
    Given a cluster of 4 nodes with 8 GPUs each
    And queue "a" with weight 1
    And queue "b" with weight 1
    And tenant B runs a pod "other" with 8 GPUs in queue "b"
    When the manifests:
      """
      apiVersion: scheduling.k8s.io/v1beta1
      kind: PodGroup
      metadata:
        name: train
        namespace: default
        annotations: {scheduling.volcano.sh/queue-name: a}
      spec: {schedulingPolicy: {gang: {minCount: 4}}}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: train-0, namespace: default}
      spec:
        schedulerName: volcano
        schedulingGroup: {podGroupName: train}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: train-1, namespace: default}
      spec:
        schedulerName: volcano
        schedulingGroup: {podGroupName: train}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: train-2, namespace: default}
      spec:
        schedulerName: volcano
        schedulingGroup: {podGroupName: train}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: train-3, namespace: default}
      spec:
        schedulerName: volcano
        schedulingGroup: {podGroupName: train}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      """
    Then "train" is admitted
    And "train" is pending because gang of 4 needs 4 tasks, 3 placeable
    And 0 pods of "train" are running
    And 24 GPUs are idle

  Scenario: A basic PodGroup is no gang: its pods start one by one
    kube-scheduler's GangScheduling plugin lets a basic group's pods through alone; Arbiter reads basic as a gang of 1.
    Given a cluster of 3 nodes with 8 GPUs each
    When the manifests:
      """
      apiVersion: scheduling.k8s.io/v1beta1
      kind: PodGroup
      metadata: {name: notebooks, namespace: default}
      spec: {schedulingPolicy: {basic: {}}}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: notebooks-0, namespace: default}
      spec:
        schedulerName: volcano
        schedulingGroup: {podGroupName: notebooks}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: notebooks-1, namespace: default}
      spec:
        schedulerName: volcano
        schedulingGroup: {podGroupName: notebooks}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: notebooks-2, namespace: default}
      spec:
        schedulerName: volcano
        schedulingGroup: {podGroupName: notebooks}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: notebooks-3, namespace: default}
      spec:
        schedulerName: volcano
        schedulingGroup: {podGroupName: notebooks}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      """
    Then 3 pods of "notebooks" are running
    And 0 GPUs are idle

  Scenario: disruptionMode all evicts the whole group when one member is a victim
    The sweep runs 3 pods and needs 2. One node's worth of room is missing for the urgent gang: one victim would do,
    but the sweep says all its pods go together.
    Given a cluster of 4 nodes with 8 GPUs each
    And the manifests:
      """
      apiVersion: scheduling.k8s.io/v1beta1
      kind: PodGroup
      metadata: {name: sweep, namespace: default}
      spec: {schedulingPolicy: {gang: {minCount: 2}}, priorityClassName: p2-regular, disruptionMode: {all: {}}}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: sweep-0, namespace: default}
      spec:
        schedulerName: volcano
        nodeName: node-1
        priorityClassName: p2-regular
        schedulingGroup: {podGroupName: sweep}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      status: {phase: Running}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: sweep-1, namespace: default}
      spec:
        schedulerName: volcano
        nodeName: node-2
        priorityClassName: p2-regular
        schedulingGroup: {podGroupName: sweep}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      status: {phase: Running}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: sweep-2, namespace: default}
      spec:
        schedulerName: volcano
        nodeName: node-3
        priorityClassName: p2-regular
        schedulingGroup: {podGroupName: sweep}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      status: {phase: Running}
      """
    When these manifests are applied:
      """
      apiVersion: scheduling.k8s.io/v1beta1
      kind: PodGroup
      metadata: {name: urgent, namespace: default}
      spec: {schedulingPolicy: {gang: {minCount: 2}}, priorityClassName: p0-critical}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: urgent-0, namespace: default}
      spec:
        schedulerName: volcano
        priorityClassName: p0-critical
        schedulingGroup: {podGroupName: urgent}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: urgent-1, namespace: default}
      spec:
        schedulerName: volcano
        priorityClassName: p0-critical
        schedulingGroup: {podGroupName: urgent}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      """
    Then "urgent" is running
    And every pod of "sweep" was evicted by preemption

  Scenario: disruptionMode single (the default) evicts only the member needed
    Given a cluster of 4 nodes with 8 GPUs each
    And the manifests:
      """
      apiVersion: scheduling.k8s.io/v1beta1
      kind: PodGroup
      metadata: {name: sweep, namespace: default}
      spec: {schedulingPolicy: {gang: {minCount: 2}}, priorityClassName: p2-regular, disruptionMode: {single: {}}}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: sweep-0, namespace: default}
      spec:
        schedulerName: volcano
        nodeName: node-1
        priorityClassName: p2-regular
        schedulingGroup: {podGroupName: sweep}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      status: {phase: Running}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: sweep-1, namespace: default}
      spec:
        schedulerName: volcano
        nodeName: node-2
        priorityClassName: p2-regular
        schedulingGroup: {podGroupName: sweep}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      status: {phase: Running}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: sweep-2, namespace: default}
      spec:
        schedulerName: volcano
        nodeName: node-3
        priorityClassName: p2-regular
        schedulingGroup: {podGroupName: sweep}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      status: {phase: Running}
      """
    When these manifests are applied:
      """
      apiVersion: scheduling.k8s.io/v1beta1
      kind: PodGroup
      metadata: {name: urgent, namespace: default}
      spec: {schedulingPolicy: {gang: {minCount: 2}}, priorityClassName: p0-critical}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: urgent-0, namespace: default}
      spec:
        schedulerName: volcano
        priorityClassName: p0-critical
        schedulingGroup: {podGroupName: urgent}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: urgent-1, namespace: default}
      spec:
        schedulerName: volcano
        priorityClassName: p0-critical
        schedulingGroup: {podGroupName: urgent}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      """
    Then "urgent" is running
    And 1 pod of "sweep" was evicted by preemption
    And 2 pods of "sweep" are running

  Scenario: The PodGroup's priority decides over its pods'
    The urgent pods name no priority class; their PodGroup's spec.priority makes the gang critical, and it preempts.
    Given a cluster of 2 nodes with 8 GPUs each
    And the manifests:
      """
      apiVersion: scheduling.k8s.io/v1beta1
      kind: PodGroup
      metadata: {name: low, namespace: default}
      spec: {schedulingPolicy: {gang: {minCount: 2}}, priorityClassName: p2-regular}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: low-0, namespace: default}
      spec:
        schedulerName: volcano
        nodeName: node-1
        priorityClassName: p2-regular
        schedulingGroup: {podGroupName: low}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      status: {phase: Running}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: low-1, namespace: default}
      spec:
        schedulerName: volcano
        nodeName: node-2
        priorityClassName: p2-regular
        schedulingGroup: {podGroupName: low}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      status: {phase: Running}
      """
    When these manifests are applied:
      """
      apiVersion: scheduling.k8s.io/v1beta1
      kind: PodGroup
      metadata: {name: urgent, namespace: default}
      spec: {schedulingPolicy: {gang: {minCount: 2}}, priority: 1000000}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: urgent-0, namespace: default}
      spec:
        schedulerName: volcano
        schedulingGroup: {podGroupName: urgent}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: urgent-1, namespace: default}
      spec:
        schedulerName: volcano
        schedulingGroup: {podGroupName: urgent}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      """
    Then "urgent" is running
    And every pod of "low" was evicted by preemption

  Scenario: A PodGroup whose preemptionPolicy is Never waits instead of preempting
    Given a cluster of 2 nodes with 8 GPUs each
    And the manifests:
      """
      apiVersion: scheduling.k8s.io/v1beta1
      kind: PodGroup
      metadata: {name: low, namespace: default}
      spec: {schedulingPolicy: {gang: {minCount: 2}}, priorityClassName: p2-regular}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: low-0, namespace: default}
      spec:
        schedulerName: volcano
        nodeName: node-1
        priorityClassName: p2-regular
        schedulingGroup: {podGroupName: low}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      status: {phase: Running}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: low-1, namespace: default}
      spec:
        schedulerName: volcano
        nodeName: node-2
        priorityClassName: p2-regular
        schedulingGroup: {podGroupName: low}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      status: {phase: Running}
      """
    When these manifests are applied:
      """
      apiVersion: scheduling.k8s.io/v1beta1
      kind: PodGroup
      metadata: {name: urgent, namespace: default}
      spec: {schedulingPolicy: {gang: {minCount: 2}}, priorityClassName: p0-critical, preemptionPolicy: Never}
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: urgent-0, namespace: default}
      spec:
        schedulerName: volcano
        priorityClassName: p0-critical
        schedulingGroup: {podGroupName: urgent}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      ---
      apiVersion: v1
      kind: Pod
      metadata: {name: urgent-1, namespace: default}
      spec:
        schedulerName: volcano
        priorityClassName: p0-critical
        schedulingGroup: {podGroupName: urgent}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      """
    Then "urgent" is pending
    And nothing was evicted

  Scenario: A pod naming a PodGroup that does not exist waits for it
    kube-scheduler's GangScheduling keeps such a pod out of its queue ("waiting for pods's pod group to appear").
    Given a cluster of 1 node with 8 GPUs each
    When the manifests:
      """
      apiVersion: v1
      kind: Pod
      metadata: {name: lonely-0, namespace: default}
      spec:
        schedulerName: volcano
        schedulingGroup: {podGroupName: missing}
        containers: [{name: main, resources: {limits: {nvidia.com/gpu: "8"}}}]
      """
    Then pod "default/lonely-0" is pending
    And 8 GPUs are idle
