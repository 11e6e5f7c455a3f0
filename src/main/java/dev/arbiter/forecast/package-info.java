/**
 * Start-time estimates (Slurm's {@code squeue --start}): the cluster run forward with the real engine from an immutable
 * snapshot, each running job ending at its runtime estimate and nothing new arriving, giving each pending job the time
 * its gang would be bound — or none, when that cannot be known ({@link dev.arbiter.forecast.StartEstimate}). The one
 * room that forecasts; it reads runtime estimates only through {@link
 * dev.arbiter.policy.PolicySettings.Runtime#estimateSeconds}. See {@code docs/estimates.md}.
 */
package dev.arbiter.forecast;
