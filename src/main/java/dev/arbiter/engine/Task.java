package dev.arbiter.engine;

import dev.arbiter.model.PodSpec;
import dev.arbiter.model.Resources;

/** A pod during one cycle: its job, its node when running, its resolved priority, and whether it was evicted. */
final class Task {
    final PodSpec pod;
    final Job job;
    final NodeState node;
    int priority;
    boolean evicted;
    boolean isProtected;

    Task(PodSpec pod, Job job, NodeState node) {
        this.pod = pod;
        this.job = job;
        this.node = node;
    }

    String id() {
        return pod.key();
    }

    Resources request() {
        return pod.requests();
    }

    boolean running() {
        return node != null;
    }

    @Override
    public String toString() {
        return id();
    }
}
