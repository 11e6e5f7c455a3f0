package dev.arbiter.engine.rules;

import java.util.List;
import org.kie.api.runtime.KieSession;

/**
 * Sees each rules session of a cycle — for tools that watch the real engine at work instead of copying it:
 * {@code validate}'s growth check counts matches per rule, its policy check inspects what the rules inserted. The
 * session is the engine's: a hook may add listeners and read, never insert or fire.
 */
public interface SessionHook {
    /** No hook. */
    SessionHook NONE = new SessionHook() {};

    /** The session is open and empty; listeners added now see every phase. */
    default void opened(KieSession session) {}

    /** One phase ({@code classify}, {@code fair-share} or {@code policy}) has fired. */
    default void fired(KieSession session, String group) {}

    /** Every phase has fired and the decisions were read ({@code conflicts}: rules that decided one thing two ways). */
    default void closing(KieSession session, List<PolicyKinds.Conflict> conflicts) {}
}
