package io.ttlstreams.platform;

import io.ttlstreams.config.StreamsDefaults;
import io.ttlstreams.config.TtlStreamsConfig;
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
        StringBuilder script = new StringBuilder("""
                #!/usr/bin/env bash
                # The topics and ACLs of ttl-streams, rendered by `ttl-streams platform --format kafka-cli`.
                # Review, then run with BOOTSTRAP=<brokers>, and ADMIN_CONFIG=<admin client properties> on a
                # secured cluster. Kafka Streams' internal topics (%s-*) are created under the processor's ACL.
                set -euo pipefail
                admin=(--bootstrap-server "${BOOTSTRAP:?set BOOTSTRAP to the brokers}")
                if [ -n "${ADMIN_CONFIG:-}" ]; then admin+=(--command-config "$ADMIN_CONFIG"); fi

                # --- Topics ---
                """.formatted(Platform.applicationId(platform.config())));
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
        StringBuilder command =
                new StringBuilder(comment(topic.name(), topic.role().purpose()));
        command.append(comment("  partitions " + topic.partitions(), topic.partitionsReason()));
        topic.settings()
                .forEach(setting ->
                        command.append(comment("  " + setting.name() + "=" + setting.value(), setting.reason())));
        command.append("kafka-topics \"${admin[@]}\" --create --if-not-exists --topic " + word(topic.name())
                + " --partitions " + topic.partitions());
        topic.replicationFactor().ifPresent(factor -> command.append(" --replication-factor " + factor));
        topic.settings()
                .forEach(setting -> command.append(" \\\n  --config " + word(setting.name() + "=" + setting.value())));
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
                commands.append("kafka-acls \"${admin[@]}\" --add --allow-principal " + principal.principal());
                acl.operations().forEach(operation -> commands.append(" --operation " + operation));
                commands.append((acl.prefixed() ? " --resource-pattern-type prefixed " : " ")
                        + acl.resource().cliOption() + " " + word(acl.name()) + "\n");
            }
        }
        return commands.toString();
    }

    /** The ACLs as a Markdown table: principal, resource, operations, why. */
    public static String aclTable(AclPlan acls) {
        StringBuilder table = new StringBuilder("| Principal | Resource | Operations | Why |\n|---|---|---|---|\n");
        for (KafkaPrincipal principal : acls.principals()) {
            for (Acl acl : principal.acls()) {
                table.append("| `" + principal.principal() + "` | "
                        + acl.resource().strimziType() + " `" + acl.name()
                        + (acl.prefixed() ? "*` (prefix)" : "`") + " | " + String.join(", ", acl.operations()) + " | "
                        + acl.reason() + " |\n");
            }
        }
        return table.toString();
    }

    /** {@code value} as one shell word: as it is when safe, else single-quoted. */
    private static String word(String value) {
        return SHELL_SAFE.matcher(value).matches() ? value : "'" + value.replace("'", "'\\''") + "'";
    }
}
