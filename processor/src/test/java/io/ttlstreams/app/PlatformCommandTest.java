package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.ttlstreams.connect.RepositoryFiles;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class PlatformCommandTest {

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
        full[0] = "platform";
        System.arraycopy(args, 0, full, 1, args.length);
        return commandLine.execute(full);
    }

    @Test
    void shouldPrintEveryTopicWithItsReasonsWhenTheFormatIsJson() throws Exception {
        assertThat(run("--config", EXAMPLE, "--format", "json", "--partitions", "4"))
                .isZero();

        JsonNode printed = new ObjectMapper().readTree(out.toString());
        assertThat(printed.path("topics").findValuesAsText("name"))
                .contains("mongo.app.sessions", "mongo.app.events", "ttl.control", "ttl.deletes", "ttl.dlq");
        JsonNode control = printed.path("topics").get(3);
        assertThat(control.path("name").asText()).isEqualTo("ttl.control");
        assertThat(control.path("partitions").asInt()).isEqualTo(4);
        assertThat(control.path("partitionsReason").asText()).contains("largest source topic");
        assertThat(printed.path("principals").findValuesAsText("principal"))
                .containsExactly(
                        "User:ttl-source", "User:ttl-processor", "User:ttl-sink", "User:ttl-ops", "User:ttl-connect");
        assertThat(printed.path("connectors").findValuesAsText("name")).contains("mongo-ttl-sink");
    }

    @Test
    void shouldPrintAScriptOfKafkaToolCallsWhenTheFormatIsKafkaCli() {
        assertThat(run("--config", EXAMPLE, "--format", "kafka-cli")).isZero();

        assertThat(out.toString())
                .startsWith("#!/usr/bin/env bash\n")
                .contains("kafka-topics \"${admin[@]}\" --create --if-not-exists --topic ttl.control --partitions 6"
                        + " --replication-factor 3")
                .contains("kafka-acls \"${admin[@]}\" --add --allow-principal User:ttl-processor --operation Write"
                        + " --operation DescribeConfigs --topic ttl.deletes");
    }

    @Test
    void shouldPrintStrimziResourcesWhenTheFormatIsStrimzi() {
        assertThat(run("--config", EXAMPLE, "--format", "strimzi", "--kafka-cluster", "prod"))
                .isZero();

        assertThat(out.toString())
                .contains("kind: KafkaTopic", "kind: KafkaUser", "kind: KafkaConnect\n", "kind: KafkaConnector")
                .contains("strimzi.io/cluster: prod");
    }

    @Test
    void shouldExitWithTwoNamingTheOptionWhenAnArgumentIsInvalid() {
        assertThat(run("--config", EXAMPLE, "--format", "strimzi", "--partitions", "0"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("--partitions must be at least 1");

        assertThat(run("--config", EXAMPLE, "--format", "helm")).isEqualTo(2);
        assertThat(err.toString()).contains("'helm' is not a format");
    }
}
