package io.ttlstreams.platform;

import io.ttlstreams.config.StreamsDefaults;
import io.ttlstreams.config.TtlStreamsConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.regex.Pattern;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The deployment's topics and ACLs as a reviewable bash script of {@code kafka-topics} and {@code kafka-acls} calls
 * (the Kafka distribution's tools), each topic with the reasons for its settings; under {@code group.protocol=streams}
 * also the {@code kafka-configs} call that gives the streams group its standbys, which that protocol takes from the
 * brokers. Also the ACL part alone, and the ACLs as a Markdown table, which docs/trust-model.md shows (a test keeps
 * them equal).
 */
public final class KafkaCliScript {

    /** What needs no quoting in a shell word: Kafka's legal topic characters and what settings use. */
    private static final Pattern SHELL_SAFE = Pattern.compile("[A-Za-z0-9._:=,/-]+");

    private KafkaCliScript() {}

    /** The whole script. */
    public static String render(Platform platform) {
        StringBuilder script = new StringBuilder();
        script.append("#!/usr/bin/env bash\n")
                .append(
                        "# The topics and ACLs of ttl-streams, rendered by `ttl-streams platform --format kafka-cli`.\n")
                .append(
                        "# Review, then run with BOOTSTRAP=<brokers>, and ADMIN_CONFIG=<admin client properties> on a\n")
                .append("# secured cluster. Kafka Streams' internal topics (")
                .append(Platform.applicationId(platform.config()))
                .append("-*) are created under the processor's ACL.\n")
                .append("set -euo pipefail\n")
                .append("admin=(--bootstrap-server \"${BOOTSTRAP:?set BOOTSTRAP to the brokers}\")\n")
                .append("if [ -n \"${ADMIN_CONFIG:-}\" ]; then admin+=(--command-config \"$ADMIN_CONFIG\"); fi\n\n")
                .append("# --- Topics ---\n");
        for (TopicSpec topic : platform.topics().topics()) {
            script.append(topicCommand(topic)).append('\n');
        }
        script.append("# --- ACLs: one principal per role ---\n").append(aclCommands(platform.acls()));
        if (platform.config().streamsRebalanceProtocol()) {
            script.append('\n').append(streamsGroupCommand(platform.config()));
        }
        return script.toString();
    }

    /**
     * The {@code kafka-configs} call that gives the streams group (group.protocol=streams) the standbys the
     * configuration asks for ({@code num.standby.replicas}, ttl-streams' default unless set), which Kafka Streams
     * ignores under that protocol: there the group's {@code streams.num.standby.replicas} decides, on the brokers.
     */
    static String streamsGroupCommand(TtlStreamsConfig config) {
        String standbys = config.streamsProperties()
                .getProperty(
                        StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG,
                        Integer.toString(StreamsDefaults.DEFAULT_NUM_STANDBY_REPLICAS));
        String setting = "streams.num.standby.replicas=" + standbys;
        String group = Platform.applicationId(config);
        return "# --- The streams group (group.protocol=streams): settings the brokers keep ---\n"
                + comment(
                        setting,
                        "each task's stores kept warm on another instance, as num.standby.replicas under the classic"
                                + " protocol; the group's session timeout and heartbeat interval stay the brokers'"
                                + " (docs/deployment.md, \"The streams rebalance protocol\")")
                + "kafka-configs \"${admin[@]}\" --alter --entity-type groups --entity-name " + word(group)
                + " --add-config " + word(setting) + "\n";
    }

    /** One topic's comment lines and {@code kafka-topics --create} call, ending with a newline. */
    static String topicCommand(TopicSpec topic) {
        StringBuilder command = new StringBuilder();
        command.append(comment(topic.name(), topic.role().purpose()));
        command.append("#   partitions ")
                .append(topic.partitions())
                .append(": ")
                .append(topic.partitionsReason());
        command.append('\n');
        for (TopicSetting setting : topic.settings()) {
            command.append("#   ")
                    .append(setting.name())
                    .append('=')
                    .append(setting.value())
                    .append(": ");
            command.append(setting.reason()).append('\n');
        }
        List<String> words = new ArrayList<>(List.of(
                "kafka-topics",
                "\"${admin[@]}\"",
                "--create",
                "--if-not-exists",
                "--topic",
                word(topic.name()),
                "--partitions",
                Integer.toString(topic.partitions())));
        OptionalInt replication = topic.replicationFactor();
        if (replication.isPresent()) {
            words.add("--replication-factor");
            words.add(Integer.toString(replication.getAsInt()));
        }
        command.append(String.join(" ", words));
        for (TopicSetting setting : topic.settings()) {
            command.append(" \\\n  --config ").append(word(setting.name() + "=" + setting.value()));
        }
        return command.append('\n').toString();
    }

    /** A comment line saying what {@code subject} is. */
    private static String comment(String subject, String what) {
        return "# " + subject + ": " + what + "\n";
    }

    /** The {@code kafka-acls --add} calls, one per ACL, each principal under a comment naming its role. */
    public static String aclCommands(AclPlan acls) {
        StringBuilder commands = new StringBuilder();
        for (KafkaPrincipal principal : acls.principals()) {
            commands.append(comment(principal.principal(), principal.role()));
            for (Acl acl : principal.acls()) {
                commands.append("kafka-acls \"${admin[@]}\" --add --allow-principal ")
                        .append(principal.principal());
                acl.operations()
                        .forEach(operation -> commands.append(" --operation ").append(operation));
                if (acl.prefixed()) {
                    commands.append(" --resource-pattern-type prefixed");
                }
                commands.append(' ')
                        .append(acl.resource().cliOption())
                        .append(' ')
                        .append(word(acl.name()));
                commands.append('\n');
            }
        }
        return commands.toString();
    }

    /** The ACLs as a Markdown table: principal, resource, operations, why. */
    public static String aclTable(AclPlan acls) {
        StringBuilder table = new StringBuilder("| Principal | Resource | Operations | Why |\n|---|---|---|---|\n");
        for (KafkaPrincipal principal : acls.principals()) {
            for (Acl acl : principal.acls()) {
                table.append("| `")
                        .append(principal.principal())
                        .append("` | ")
                        .append(acl.resource().strimziType())
                        .append(" `")
                        .append(acl.name())
                        .append(acl.prefixed() ? "*` (prefix)" : "`")
                        .append(" | ")
                        .append(String.join(", ", acl.operations()))
                        .append(" | ")
                        .append(acl.reason())
                        .append(" |\n");
            }
        }
        return table.toString();
    }

    /** {@code value} as one shell word: as it is when safe, else single-quoted. */
    private static String word(String value) {
        return SHELL_SAFE.matcher(value).matches() ? value : "'" + value.replace("'", "'\\''") + "'";
    }
}
