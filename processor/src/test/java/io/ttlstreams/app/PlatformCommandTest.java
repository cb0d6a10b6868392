package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class PlatformCommandTest {

    private static final String EXAMPLE = CliRun.EXAMPLE;

    private final CliRun cli = new CliRun("platform");

    @Test
    void shouldPrintEveryTopicWithItsReasonsWhenTheFormatIsJson() throws Exception {
        assertThat(cli.run("--config", EXAMPLE, "--format", "json", "--partitions", "4"))
                .isZero();

        JsonNode printed = new ObjectMapper().readTree(cli.out());
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
        assertThat(cli.run("--config", EXAMPLE, "--format", "kafka-cli")).isZero();

        assertThat(cli.out())
                .startsWith("#!/usr/bin/env bash\n")
                .contains("kafka-topics \"${admin[@]}\" --create --if-not-exists --topic ttl.control --partitions 6"
                        + " --replication-factor 3")
                .contains("kafka-acls \"${admin[@]}\" --add --allow-principal User:ttl-processor --operation Write"
                        + " --operation DescribeConfigs --topic ttl.deletes");
    }

    @Test
    void shouldPrintStrimziResourcesWhenTheFormatIsStrimzi() {
        assertThat(cli.run("--config", EXAMPLE, "--format", "strimzi", "--kafka-cluster", "prod"))
                .isZero();

        assertThat(cli.out())
                .contains("kind: KafkaTopic", "kind: KafkaUser", "kind: KafkaConnect\n", "kind: KafkaConnector")
                .contains("strimzi.io/cluster: prod");
    }

    @Test
    void shouldExitWithTwoNamingTheOptionWhenAnArgumentIsInvalid() {
        assertThat(cli.run("--config", EXAMPLE, "--format", "strimzi", "--partitions", "0"))
                .isEqualTo(2);
        assertThat(cli.err()).contains("--partitions must be at least 1");

        assertThat(cli.run("--config", EXAMPLE, "--format", "helm")).isEqualTo(2);
        assertThat(cli.err()).contains("'helm' is not a format");
    }
}
