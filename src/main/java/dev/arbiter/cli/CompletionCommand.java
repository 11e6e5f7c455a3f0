package dev.arbiter.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code arbiter completion bash|zsh}: the shell completion script, as kubectl's {@code completion} prints it
 * ({@code source <(arbiter completion bash)}), made by picocli's AutoComplete from the commands' own options; zsh runs
 * the same script through its bash completion layer.
 */
@Command(name = "completion", mixinStandardHelpOptions = true,
        description = "Print a shell completion script: source <(arbiter completion bash), or zsh.")
final class CompletionCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "SHELL", description = "bash or zsh.")
    String shell;

    @Override
    public Integer call() {
        if (!shell.equals("bash") && !shell.equals("zsh")) return Main.usage(spec, "SHELL must be bash or zsh, got " + shell);
        String script = AutoComplete.bash("arbiter", spec.root().commandLine());
        if (shell.equals("zsh")) script = "autoload -U +X compinit && compinit\nautoload -U +X bashcompinit && bashcompinit\n" + script;
        spec.commandLine().getOut().print(script);
        spec.commandLine().getOut().flush();
        return 0;
    }
}
