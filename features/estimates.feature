Feature: Start-time estimates: when a waiting job will start
  A job can say how long it expects to run (the pod annotation arbiter.dev/runtime-estimate, e.g. "2h"), and a
  platform engineer can set a default per queue or per PriorityClass in policy.yaml. Arbiter then runs the cluster
  forward with its real rules, every running job ending at its estimate, and tells each waiting job when it would
  start, as Slurm's "squeue --start" does. A job that waits on work nobody estimated gets no estimate at all, never a
  guessed one.

  Background:
    Given a cluster of 2 nodes with 8 GPUs each
    And queue "research" with weight 1

  Scenario: A job behind a running gang with a 2-hour estimate starts in about 2 hours
    Given tenant A runs a job "pretrain" of 2 pods with 8 GPUs each in queue "research", expected to run 2h
    When tenant A submits a job "finetune" of 2 pods with 8 GPUs each in queue "research", expected to run 1h
    Then "finetune" is pending
    And "finetune" is estimated to start in about 2h

  Scenario: Estimates add up along the line
    Given tenant A runs a job "pretrain" of 2 pods with 8 GPUs each in queue "research", expected to run 2h
    When tenant A submits a job "finetune" of 2 pods with 8 GPUs each in queue "research", expected to run 1h30m
    And tenant A submits a job "evaluate" of 2 pods with 8 GPUs each in queue "research", expected to run 10m
    Then "evaluate" is pending
    And "evaluate" is estimated to start in about 3h30m

  Scenario: A job behind a job with no estimate has none
    Given tenant A runs a job "notebook" of 2 pods with 8 GPUs each in queue "research"
    When tenant A submits a job "finetune" of 2 pods with 8 GPUs each in queue "research", expected to run 1h
    Then "finetune" is pending
    And "finetune" has no estimated start because it waits on "notebook"

  Scenario: A queue's default estimate stands in for jobs that give none
    Given the scenario sets runtime.defaultByQueue in policy.yaml to "{research: 3h}"
    And tenant A runs a job "notebook" of 2 pods with 8 GPUs each in queue "research"
    When tenant A submits a job "finetune" of 2 pods with 8 GPUs each in queue "research"
    Then "finetune" is pending
    And "finetune" is estimated to start in about 3h

  Scenario: Another queue's default does not apply
    Given queue "serving" with weight 1
    And the scenario sets runtime.defaultByQueue in policy.yaml to "{serving: 3h}"
    And tenant A runs a job "notebook" of 2 pods with 8 GPUs each in queue "research"
    When tenant A submits a job "finetune" of 2 pods with 8 GPUs each in queue "research"
    Then "finetune" is pending
    And "finetune" has no estimated start
