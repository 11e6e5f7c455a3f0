package dev.arbiter.engine.rules;

import java.util.List;

/** The rule folder does not compile. Each problem is one line: {@code file:line: message}. */
public final class RuleCompileException extends RuntimeException {
    private final List<String> problems;

    RuleCompileException(List<String> problems) {
        super(problems.isEmpty() ? "rules do not compile" : problems.get(0));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
