package io.ttlstreams.embedded.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.ttlstreams.app.TtlStreamsCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Issue 43: {@code run} on the embedded stack with a stand-in playing MongoDB 5.0 and a rule whose expired records
 * carry pre-images stops at start-up with exit code 2 and one line naming the rule's option and the server's version,
 * before any connector is registered: never a FAILED source connector.
 */
@Tag("integration")
class PreImageServerVersionIT {

    @Test
    void shouldExitWithOneLineNamingTheRuleAndTheVersionWhenAPreImageRuleMeetsMongoDb50() {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine commandLine = TtlStreamsCli.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));

        int exitCode = commandLine.execute(
                "run",
                "--set",
                "embedded.mongodb.port=0",
                "--set",
                "embedded.kafka.port=0",
                "--set",
                "embedded.connect.port=0",
                "--set",
                "ttl.http.port=0",
                "--set",
                "embedded.mongodb.version=5.0",
                "--set",
                "ttl.expired.topic=ttl.expired",
                "--set",
                "ttl.rule.sessions.expired.document=pre-image");

        assertThat(exitCode).as("exit code; it printed:%n%s%n%s", out, err).isEqualTo(TtlStreamsCli.EXIT_BAD_INPUT);
        assertThat(err.toString().lines()).as(err.toString()).hasSize(1);
        assertThat(err.toString())
                .startsWith("ttl-streams run: Invalid value pre-image for configuration"
                        + " ttl.rule.sessions.expired.document: the MongoDB server at ttl.mongodb.uri is 5.0.")
                .contains("from 6.0 on");
        assertThat(out.toString()).doesNotContain("ready");
    }
}
