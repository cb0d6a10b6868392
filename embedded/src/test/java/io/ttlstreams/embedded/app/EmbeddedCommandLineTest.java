package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.app.TtlStreamsCli;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** The embedded stack's commands as a newcomer types them, where no broker needs to start. */
class EmbeddedCommandLineTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();
    private ServerSocket taken;

    @BeforeEach
    void takeAPort() throws IOException {
        taken = new ServerSocket();
        taken.bind(new InetSocketAddress("127.0.0.1", 0));
    }

    @AfterEach
    void releaseThePort() throws IOException {
        taken.close();
    }

    private int run(String... args) {
        CommandLine commandLine = TtlStreamsCli.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }

    @Test
    void shouldOfferDemoTheConfigurationOptionsOfRun() {
        assertThat(run("demo", "--help")).isZero();

        assertThat(out.toString())
                .contains("--config=FILE")
                .contains("--set=KEY=VALUE")
                .contains("TTL_STREAMS_");
    }

    @ParameterizedTest
    @CsvSource({
        "demo, embedded.kafka.port",
        "demo, embedded.mongodb.port",
        "demo, embedded.connect.port",
        "run, embedded.kafka.port",
    })
    void shouldExitWithOneLineNamingTheOptionWhenAPortIsInUse(String command, String option) {
        int port = taken.getLocalPort();

        int exitCode = run(command, "--set", option + "=" + port);

        assertThat(exitCode).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertThat(err.toString().lines()).hasSize(1);
        assertThat(err.toString())
                .startsWith("ttl-streams " + command + ": Invalid value " + port + " for configuration " + option
                        + ": port " + port + " on 127.0.0.1 is in use")
                .contains("--set " + option + "=0");
    }

    @Test
    void shouldNameTheOptionOfAMisspeltSetting() {
        int exitCode = run("demo", "--set", "embedded.kafka.prot=0");

        assertThat(exitCode).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertThat(err.toString()).contains("embedded.kafka.prot").contains("did you mean embedded.kafka.port?");
    }
}
