package dev.arbiter.live;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The records of one kind, by key and in snapshot order, kept up to date one informer event at a time: an update
 * that keeps the record's place replaces it in place, a new record is inserted at its place (usually the end: new
 * objects are the newest), a deleted one is removed. {@link #frozen()} hands out an immutable list that is rebuilt
 * (one array copy, no sort) only when something changed since the last call, so a cycle on an unchanged kind costs
 * nothing and a cycle after k changes costs O(k log n) plus one copy.
 *
 * <p>{@code order} must be total over distinct keys (ties broken by key). Thread-safe.
 */
final class RecordIndex<R> {
    private final Comparator<R> order;
    private final Map<String, R> byKey = new HashMap<>();
    private final ArrayList<R> sorted = new ArrayList<>();
    private List<R> frozen = List.of();
    private boolean changed;

    RecordIndex(Comparator<R> order) {
        this.order = order;
    }

    /** Stores {@code record} under {@code key}; returns the previous record (null if none). */
    synchronized R put(String key, R record) {
        R previous = byKey.put(key, record);
        if (previous != null) {
            if (Objects.equals(previous, record)) return previous;
            int at = Collections.binarySearch(sorted, previous, order);
            if (at >= 0 && order.compare(previous, record) == 0) {
                sorted.set(at, record);
                changed = true;
                return previous;
            }
            if (at >= 0) sorted.remove(at);
        }
        insert(record);
        changed = true;
        return previous;
    }

    private void insert(R record) {
        int n = sorted.size();
        if (n == 0 || order.compare(sorted.get(n - 1), record) < 0) {
            sorted.add(record);
            return;
        }
        int at = Collections.binarySearch(sorted, record, order);
        sorted.add(at >= 0 ? at : -at - 1, record);
    }

    /** Removes the record of {@code key}; returns it, or null if there was none. */
    synchronized R remove(String key) {
        R previous = byKey.remove(key);
        if (previous == null) return null;
        int at = Collections.binarySearch(sorted, previous, order);
        if (at >= 0) sorted.remove(at);
        changed = true;
        return previous;
    }

    synchronized R get(String key) {
        return byKey.get(key);
    }

    synchronized boolean contains(String key) {
        return byKey.containsKey(key);
    }

    synchronized int size() {
        return byKey.size();
    }

    /** Every record in order, as an immutable list shared by all callers until the next change. */
    synchronized List<R> frozen() {
        if (changed) {
            frozen = List.copyOf(sorted);
            changed = false;
        }
        return frozen;
    }

    /** The position of {@code record} in {@code list} (a {@link #frozen()} list), or -1. */
    int indexIn(List<R> list, R record) {
        int at = Collections.binarySearch(list, record, order);
        return at >= 0 ? at : -1;
    }
}
