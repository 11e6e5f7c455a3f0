/**
 * What a running Arbiter needs from its surroundings, shared by {@code arbiter run} and the commands that read a live
 * cluster ({@code snapshot}, {@code explain --kubeconfig}): connecting to a cluster with one-line errors
 * ({@link dev.arbiter.runtime.KubeClients}), writing a cluster's scheduling objects as manifests
 * ({@link dev.arbiter.runtime.LiveSnapshot}) and hot reload of a rules folder ({@link dev.arbiter.runtime.RulesWatcher}).
 *
 * <p>Dependencies point one way: {@code cli → live → runtime → engine, manifest, model}. Nothing here schedules or
 * writes to the cluster.
 */
package dev.arbiter.runtime;
