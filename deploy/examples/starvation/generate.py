# Writes starvation.yaml (run from the repository root: python3 deploy/examples/starvation/generate.py). Seeded: the
# same file every time.
import random
r = random.Random(39)
out = []
out.append("# The cluster: eight 8-GPU nodes, 64 GPUs in all, and the one queue every tenant shares (Volcano's default, where pods without a PodGroup go).")
for i in range(1, 9):
    out.append(f"""---
apiVersion: v1
kind: Node
metadata:
  name: node-{i}
  labels: {{kubernetes.io/hostname: node-{i}}}
status:
  allocatable: {{cpu: "96", memory: 768Gi, pods: "110", nvidia.com/gpu: "8"}}""")
out.append("""---
apiVersion: scheduling.volcano.sh/v1beta1
kind: Queue
metadata: {name: default}
spec: {weight: 1, reclaimable: true}""")
def est(s):  # the user's estimate: the real runtime rounded up to 5 minutes
    m = -(-s // 300) * 5
    return f"{m}m"
def small(name, arrival, runtime):
    ann = f'simulation.arbiter.dev/runtime: "{runtime}s", arbiter.dev/runtime-estimate: "{est(runtime)}"'
    if arrival: ann += f', simulation.arbiter.dev/arrival-cycle: "{arrival}"'
    return f"""---
apiVersion: v1
kind: Pod
metadata:
  name: {name}
  namespace: tenantb
  annotations: {{{ann}}}
spec:
  schedulerName: arbiter
  containers:
  - name: c
    resources: {{requests: {{nvidia.com/gpu: "2"}}, limits: {{nvidia.com/gpu: "2"}}}}"""
out.append("# Tenant B's small jobs: 2 GPUs each, 15 to 42 minutes, each with its estimate rounded up to 5 minutes.")
out.append("# 32 fill the cluster at the start; then one arrives every minute for six hours.")
for i in range(32):
    out.append(small(f"small-{i:03d}", 0, r.randint(600, 2500)))
out.append("""---
# Tenant A's 64-GPU gang (8 pods x 8 GPUs), one hour, arriving after five minutes.
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata:
  name: big
  namespace: tenanta
  annotations: {simulation.arbiter.dev/arrival-cycle: "300"}
spec: {minMember: 8, queue: default}""")
for i in range(8):
    out.append(f"""---
apiVersion: v1
kind: Pod
metadata:
  name: big-{i}
  namespace: tenanta
  annotations: {{scheduling.k8s.io/group-name: big, simulation.arbiter.dev/arrival-cycle: "300", simulation.arbiter.dev/runtime: "3600s", arbiter.dev/runtime-estimate: "1h"}}
spec:
  schedulerName: arbiter
  containers:
  - name: c
    resources: {{requests: {{nvidia.com/gpu: "8"}}, limits: {{nvidia.com/gpu: "8"}}}}""")
for k in range(1, 361):
    out.append(small(f"small-{31+k:03d}", 60 * k, r.randint(900, 2500)))
open("deploy/examples/starvation/starvation.yaml", "w").write("\n".join(out) + "\n")
