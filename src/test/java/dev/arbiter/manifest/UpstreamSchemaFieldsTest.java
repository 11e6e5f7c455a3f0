package dev.arbiter.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The unknown-field check ({@link Mistakes#unknownFields}) against the upstream schemas: a manifest of each kind it
 * checks, with every field of the upstream spec set (Volcano's CRDs and {@code volcano-sh/apis} types, Kubeflow's
 * PyTorchJob v1 CRD and MPIJob v2beta1 CRD, LWS's {@code leaderworkerset_types.go}), gives no notice: a valid field
 * reported unknown is a bug.
 */
class UpstreamSchemaFieldsTest {
    private static final String TEMPLATE = "{spec: {containers: [{name: c, image: x, resources: {requests: {cpu: \"1\"}}}]}}";

    private static List<String> notices(String yaml) {
        return ManifestLoader.parse(yaml, "m.yaml").notices();
    }

    @Test
    void aVolcanoQueuePodGroupAndHyperNodeWithEveryUpstreamFieldGiveNoNotice() {
        assertEquals(List.of(), notices("""
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: Queue
                metadata: {name: research}
                spec:
                  weight: 2
                  capability: {cpu: "64"}
                  deserved: {cpu: "32"}
                  guarantee: {resource: {cpu: "8"}}
                  reclaimable: true
                  extendClusters: [{name: east, weight: 1, capacity: {cpu: "10"}}]
                  affinity: {nodeGroupAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [g1]}}
                  type: normal
                  parent: root
                  priority: 10
                  dequeueStrategy: traverse
                ---
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: train, namespace: team-a}
                spec:
                  minMember: 2
                  minTaskMember: {worker: 2}
                  queue: research
                  priorityClassName: ""
                  minResources: {cpu: "2"}
                  networkTopology: {mode: hard, highestTierAllowed: 2, highestTierName: rack}
                  subGroupPolicy:
                  - name: workers
                    networkTopology: {mode: soft, highestTierAllowed: 1, highestTierName: node}
                    subGroupSize: 2
                    minSubGroups: 1
                    labelSelector: {matchLabels: {role: worker}}
                    matchLabelKeys: [volcano.sh/task-index]
                ---
                apiVersion: topology.volcano.sh/v1alpha1
                kind: HyperNode
                metadata: {name: rack-1}
                spec:
                  tier: 1
                  tierName: rack
                  members:
                  - {type: Node, selector: {exactMatch: {name: node-1}}}
                  - {type: Node, selector: {regexMatch: {pattern: "node-2.*"}}}
                  - {type: Node, selector: {labelMatch: {matchLabels: {rack: "1"}}}}
                """));
    }

    @Test
    void aVolcanoJobWithEveryUpstreamFieldGivesNoNotice() {
        assertEquals(List.of(), notices("""
                apiVersion: batch.volcano.sh/v1alpha1
                kind: Job
                metadata: {name: vj, namespace: ml}
                spec:
                  schedulerName: volcano
                  minAvailable: 2
                  volumes: [{mountPath: /data, volumeClaimName: data}]
                  policies: [{event: PodEvicted, action: RestartJob, timeout: 10m}]
                  plugins: {svc: [], env: []}
                  runningEstimate: 1h
                  queue: default
                  maxRetry: 3
                  ttlSecondsAfterFinished: 60
                  priorityClassName: ""
                  minSuccess: 1
                  networkTopology: {mode: soft, highestTierAllowed: 2, highestTierName: rack}
                  tasks:
                  - name: master
                    replicas: 1
                    minAvailable: 1
                    template: %1$s
                    policies: [{events: [PodFailed], action: AbortJob}, {exitCode: 3, action: RestartTask}]
                    topologyPolicy: none
                    maxRetry: 2
                  - name: worker
                    replicas: 2
                    template: %1$s
                    dependsOn: {name: [master], iteration: any}
                    partitionPolicy:
                      totalPartitions: 1
                      partitionSize: 2
                      minPartitions: 1
                      networkTopology: {mode: hard, highestTierAllowed: 1, highestTierName: node}
                """.formatted(TEMPLATE)));
    }

    @Test
    void kubeflowJobsWithEveryUpstreamFieldGiveNoNotice() {
        assertEquals(List.of(), notices("""
                apiVersion: kubeflow.org/v1
                kind: PyTorchJob
                metadata: {name: pt, namespace: ml}
                spec:
                  nprocPerNode: auto
                  elasticPolicy:
                    minReplicas: 1
                    maxReplicas: 2
                    rdzvBackend: c10d
                    rdzvPort: 29400
                    rdzvHost: pt-master
                    rdzvId: pt
                    rdzvConf: [{key: timeout, value: "900"}]
                    standalone: false
                    nProcPerNode: 1
                    maxRestarts: 3
                    metrics: []
                  runPolicy:
                    cleanPodPolicy: None
                    ttlSecondsAfterFinished: 60
                    activeDeadlineSeconds: 3600
                    backoffLimit: 3
                    suspend: false
                    managedBy: kubeflow.org/training-operator
                    schedulingPolicy:
                      minAvailable: 2
                      queue: default
                      minResources: {cpu: "2"}
                      priorityClass: ""
                      scheduleTimeoutSeconds: 60
                  pytorchReplicaSpecs:
                    Master: {replicas: 1, restartPolicy: OnFailure, template: %1$s}
                    Worker: {replicas: 1, restartPolicy: OnFailure, template: %1$s}
                ---
                apiVersion: kubeflow.org/v2beta1
                kind: MPIJob
                metadata: {name: mpi, namespace: ml}
                spec:
                  slotsPerWorker: 1
                  runLauncherAsWorker: false
                  sshAuthMountPath: /root/.ssh
                  launcherCreationPolicy: AtStartup
                  mpiImplementation: OpenMPI
                  runPolicy:
                    cleanPodPolicy: Running
                    ttlSecondsAfterFinished: 60
                    activeDeadlineSeconds: 3600
                    backoffLimit: 3
                    suspend: false
                    managedBy: kubeflow.org/mpi-operator
                    schedulingPolicy: {minAvailable: 3, queue: default, minResources: {cpu: "3"}, priorityClass: "", scheduleTimeoutSeconds: 60}
                  mpiReplicaSpecs:
                    Launcher: {replicas: 1, restartPolicy: OnFailure, template: %1$s}
                    Worker: {replicas: 2, restartPolicy: Never, template: %1$s}
                """.formatted(TEMPLATE)));
    }

    @Test
    void aLeaderWorkerSetWithEveryUpstreamFieldGivesNoNotice() {
        assertEquals(List.of(), notices("""
                apiVersion: leaderworkerset.x-k8s.io/v1
                kind: LeaderWorkerSet
                metadata: {name: lws, namespace: ml}
                spec:
                  replicas: 1
                  startupPolicy: LeaderCreated
                  networkConfig: {subdomainPolicy: Shared}
                  rolloutStrategy:
                    type: RollingUpdate
                    rollingUpdateConfiguration: {partition: 0, maxUnavailable: 1, maxSurge: 0}
                  leaderWorkerTemplate:
                    size: 2
                    restartPolicy: RecreateGroupOnPodRestart
                    subGroupPolicy: {subGroupPolicyType: LeaderWorker, subGroupSize: 2}
                    volumeClaimTemplates:
                    - metadata: {name: cache}
                      spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
                    persistentVolumeClaimRetentionPolicy: {whenDeleted: Delete, whenScaled: Retain}
                    leaderTemplate: %1$s
                    workerTemplate: %1$s
                """.formatted(TEMPLATE)));
    }

    @Test
    void fieldsUpstreamDoesNotHaveAreStillReported() {
        assertEquals(List.of(
                "m.yaml:4: PodGroup team-a/train: spec.preemptable: unknown field, ignored",
                "m.yaml:10: LeaderWorkerSet ml/lws: spec.leaderWorkerTemplate.resizePolicy: unknown field, ignored"),
                notices("""
                apiVersion: scheduling.volcano.sh/v1beta1
                kind: PodGroup
                metadata: {name: train, namespace: team-a}
                spec: {minMember: 1, preemptable: true}
                ---
                apiVersion: leaderworkerset.x-k8s.io/v1
                kind: LeaderWorkerSet
                metadata: {name: lws, namespace: ml}
                spec:
                  leaderWorkerTemplate: {size: 1, resizePolicy: {}, workerTemplate: %s}
                """.formatted(TEMPLATE)));
    }
}
