/**
 * Live cluster mode ({@code arbiter run}): the same snapshot → rules → decisions pipeline as the simulator, with a
 * Kubernetes API server at both ends.
 *
 * <ul>
 *   <li>Read: {@link dev.arbiter.live.ClusterCache} (informers; one translated record per object, updated per event)
 *       and {@link dev.arbiter.live.AssumeCache} (what was issued but not yet seen), frozen per cycle into a
 *       {@link dev.arbiter.model.ClusterSnapshot}.</li>
 *   <li>Decide: {@link dev.arbiter.engine.Scheduler}, unchanged; it sees neither informers nor clients.</li>
 *   <li>Act: {@link dev.arbiter.live.Actuator}, the only writer (bindings, evictions, status, events), with bounded
 *       {@link dev.arbiter.live.Backoff}; every call it makes is listed in {@link dev.arbiter.live.ApiPermissions}.</li>
 *   <li>Drive: {@link dev.arbiter.live.SchedulingLoop} (one thread, periodic and change-triggered cycles),
 *       {@link dev.arbiter.live.LeaderElection}, {@link dev.arbiter.live.LiveScheduler} (wiring and lifecycle),
 *       {@link dev.arbiter.live.MetricsServer} and {@link dev.arbiter.live.Metrics}.</li>
 * </ul>
 */
package dev.arbiter.live;
