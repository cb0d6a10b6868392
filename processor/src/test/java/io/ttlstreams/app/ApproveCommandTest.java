package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.processor.GuardDecision;
import org.junit.jupiter.api.Test;

class ApproveCommandTest {

    private static final String EXAMPLE = CliRun.EXAMPLE;

    private final CliRun cli = new CliRun("approve");

    @Test
    void shouldSayWhatItWouldSendAndSendNothingWhenDryRun() {
        assertThat(cli.run("--config", EXAMPLE, "--rule", "sessions", "--reject", "--id", "d-1", "--dry-run"))
                .isZero();

        assertThat(cli.out())
                .contains("dry run")
                .contains(new GuardDecision("sessions", false, "d-1").toJson())
                .contains("cancels the documents it holds for rule sessions");
    }

    @Test
    void shouldRefuseARuleTheConfigurationDoesNotHaveWhenAsked() {
        assertThat(cli.run("--config", EXAMPLE, "--rule", "nosuch", "--dry-run"))
                .isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);

        assertThat(cli.err()).contains("no rule nosuch");
    }

    @Test
    void shouldRefuseAnIdThatIsNoPlainTokenWhenGiven() {
        assertThat(cli.run("--config", EXAMPLE, "--rule", "sessions", "--id", "a b", "--dry-run"))
                .isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
    }
}
