/**
 * Live cluster mode ({@code arbiter run}): the same snapshot → rules → decisions pipeline as the simulator, with a
 * Kubernetes API server at both ends.
 *
 * <ul>
 *   <li>Read: {@link dev.arbiter.live.ClusterCache} (informers; one translated record per object, kept in snapshot
 *       order as events arrive, {@link dev.arbiter.live.PodTranslation} translating identical pods once) and
 *       {@link dev.arbiter.live.AssumeCache} (what was issued but not yet seen), frozen per cycle into a
 *       {@link dev.arbiter.model.ClusterSnapshot} at a cost proportional to what changed.</li>
 *   <li>Decide: {@link dev.arbiter.engine.cycle.Scheduler}, unchanged; it sees neither informers nor clients.</li>
 *   <li>Act: {@link dev.arbiter.live.Actuator}, the only writer, which hands each cycle's decisions to its writers by
 *       output kind and returns: {@link dev.arbiter.live.Binder} and {@link dev.arbiter.live.Evictor} on a bounded
 *       pool of concurrent binders (gangs all-or-nothing, {@link dev.arbiter.live.StrandedGangs} for failed
 *       rollbacks), {@link dev.arbiter.live.StatusWriter}, {@link dev.arbiter.live.EventRecorder}; all through
 *       {@link dev.arbiter.live.ApiCalls} with bounded {@link dev.arbiter.live.Backoff}. Every call is listed in
 *       {@link dev.arbiter.live.ApiPermissions}.</li>
 *   <li>Drive: {@link dev.arbiter.live.SchedulingLoop} (one thread, periodic and change-triggered cycles, survives
 *       any Throwable), {@link dev.arbiter.live.LeaderElection}, {@link dev.arbiter.live.LiveScheduler} (wiring,
 *       health, bounded shutdown), {@link dev.arbiter.live.MetricsServer} and {@link dev.arbiter.live.Metrics}.</li>
 *   <li>Start: {@link dev.arbiter.live.WarmUp} runs the engine on a small synthetic cluster while the informers list
 *       the real one, so that the first real cycle runs compiled code.</li>
 * </ul>
 * Depends on {@code decision}, {@code engine}, {@code json} (the Binding bodies), {@code manifest}, {@code model},
 * {@code runtime} and {@code synth} (the warm-up's cluster), never on {@code sim} or {@code authoring}; {@code cli}
 * depends on it.
 */
package dev.arbiter.live;
