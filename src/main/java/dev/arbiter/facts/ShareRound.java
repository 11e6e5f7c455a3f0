package dev.arbiter.facts;

import dev.arbiter.model.Resources;
import java.util.Collection;
import org.kie.api.definition.type.Modifies;

/**
 * The state of fair-share water-filling among the children of one queue ({@code parent}; {@code root} for the top
 * level): round {@code number} hands out {@code remaining} to the children that are not yet met, in proportion to
 * their weights ({@code unmetWeight} is the sum of those weights). The fair-share rules advance it until nothing
 * remains, nothing changes, or every child is met; then {@code open} is false and the children's shares are final.
 */
public final class ShareRound {
    private final String parent;
    private final Resources total;
    private int number = 1;
    private Resources remaining;
    private long unmetWeight;
    private boolean open;

    public ShareRound(String parent, Resources total, Collection<?> queues) {
        this.parent = parent;
        this.total = total;
        this.remaining = reserveGuarantees(total, queues);
        this.unmetWeight = unmetWeight(queues);
        this.open = unmetWeight > 0 && !remaining.isEmpty();
    }

    public String getParent() { return parent; }
    public int getNumber() { return number; }
    public Resources getTotal() { return total; }
    public Resources getRemaining() { return remaining; }
    public long getUnmetWeight() { return unmetWeight; }
    public boolean isOpen() { return open; }

    /**
     * Closes this round: what remains is the total less every queue's deserved share (or its guarantee, if larger);
     * the next round is open while something remains, some queue is unmet, and the last round changed something —
     * what remains, or which queues are unmet (then the light queues share what the heavy ones left).
     */
    @Modifies({"number", "remaining", "unmetWeight", "open"})
    public void nextRound(Collection<?> queues) {
        Resources before = remaining;
        long unmetBefore = unmetWeight;
        Resources taken = Resources.NONE;
        for (Object o : queues) {
            QueueFact q = (QueueFact) o;
            taken = taken.add(q.getDeserved().max(q.getGuarantee()));
        }
        remaining = total.subtract(taken).clampNonNegative();
        unmetWeight = unmetWeight(queues);
        number++;
        open = unmetWeight > 0 && !remaining.isEmpty() && (!remaining.equals(before) || unmetWeight != unmetBefore);
    }

    private static Resources reserveGuarantees(Resources total, Collection<?> queues) {
        Resources g = Resources.NONE;
        for (Object o : queues) g = g.add(((QueueFact) o).getGuarantee());
        return total.subtract(g).clampNonNegative();
    }

    private static long unmetWeight(Collection<?> queues) {
        long w = 0;
        for (Object o : queues) {
            QueueFact q = (QueueFact) o;
            if (!q.isMet()) w += q.getWeight();
        }
        return w;
    }
}
