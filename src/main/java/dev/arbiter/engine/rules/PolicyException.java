package dev.arbiter.engine.rules;

/**
 * The rules compiled but failed at run time: a rule kept firing, ran past its deadline or threw, or the rules decided
 * something the mechanism cannot obey. One line, starting with the rule's {@code file:line} when known.
 */
public final class PolicyException extends RuntimeException {
    private final String rule;

    PolicyException(String message) {
        this(message, null);
    }

    PolicyException(String message, String rule) {
        super(message);
        this.rule = rule;
    }

    /** The rule at fault, or null. */
    public String rule() {
        return rule;
    }
}
