package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.connect.RepositoryFiles;
import io.ttlstreams.processor.GuardDecision;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ApproveCommandTest {

    private static final String EXAMPLE = RepositoryFiles.root()
            .resolve("connect-config/example-processor.properties")
            .toString();

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine commandLine = TtlStreamsCli.commandLine();
        commandLine.setOut(new PrintWriter(out));
        commandLine.setErr(new PrintWriter(err));
        String[] full = new String[args.length + 1];
        full[0] = "approve";
        System.arraycopy(args, 0, full, 1, args.length);
        return commandLine.execute(full);
    }

    @Test
    void shouldSayWhatItWouldSendAndSendNothingWhenDryRun() {
        assertThat(run("--config", EXAMPLE, "--rule", "sessions", "--reject", "--id", "d-1", "--dry-run"))
                .isZero();

        assertThat(out.toString())
                .contains("dry run")
                .contains(new GuardDecision("sessions", false, "d-1").toJson())
                .contains("cancels the documents it holds for rule sessions");
    }

    @Test
    void shouldRefuseARuleTheConfigurationDoesNotHaveWhenAsked() {
        assertThat(run("--config", EXAMPLE, "--rule", "nosuch", "--dry-run")).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);

        assertThat(err.toString()).contains("no rule nosuch");
    }

    @Test
    void shouldRefuseAnIdThatIsNoPlainTokenWhenGiven() {
        assertThat(run("--config", EXAMPLE, "--rule", "sessions", "--id", "a b", "--dry-run"))
                .isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
    }
}
