package dev.arbiter.engine;

/** The rules compiled but asked for something the mechanism does not know (e.g. an unknown sort key). One line. */
public final class PolicyException extends RuntimeException {
    public PolicyException(String message) {
        super(message);
    }
}
