package dev.arbiter.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the {@code arbiter} command line in-process and captures exit code, stdout and stderr. */
public record CliRunner(int exit, String out, String err) {
    public static CliRunner run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new CliRunner(code, out.toString(), err.toString());
    }
}
