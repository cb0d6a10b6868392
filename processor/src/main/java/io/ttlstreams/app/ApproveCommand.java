package io.ttlstreams.app;

import io.ttlstreams.config.KafkaClientSecurity;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.platform.AccessDenied;
import io.ttlstreams.platform.Acl;
import io.ttlstreams.platform.AclPlan;
import io.ttlstreams.processor.GuardDecision;
import io.ttlstreams.resync.KafkaResyncPublisher;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ttl-streams approve}: an operator's decision on the entries the blast-radius guard holds for a rule, sent to
 * a running deployment through its control topic, to every partition, so that every task applies it to its share
 * without a restart.
 */
@Command(
        name = "approve",
        mixinStandardHelpOptions = true,
        description = {
            "Release (or, with --reject, cancel) the documents the blast-radius guard holds for a rule: they came due"
                    + " on arrival past the rule's limit. Released ones expire, within the throttle; rejected ones wait"
                    + " for their document's next change.",
            "Sends one decision to the control topic of the running deployment; sending it again (same --id)"
                    + " changes nothing.",
            "On a cluster with ACLs, run it as the operators' user (User:ttl-ops, which may write the control topic"
                    + " only): give its security settings with --set, e.g. --set 'sasl.jaas.config=$${file:...}'."
        },
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {
            "0:the decision was sent (or, with --dry-run, shown)",
            "1:the decision could not be sent",
            "2:invalid configuration or arguments"
        })
final class ApproveCommand implements Callable<Integer> {

    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(30);

    @Spec
    private CommandSpec spec;

    @Mixin
    private ConfigSource config;

    @Option(
            names = "--rule",
            required = true,
            paramLabel = "NAME",
            description = "The rule whose held documents to decide on.")
    private String rule;

    @Option(names = "--reject", description = "Cancel the held documents instead of releasing them.")
    private boolean reject;

    @Option(names = "--dry-run", description = "Show the decision and where it would go; send nothing.")
    private boolean dryRun;

    @Option(
            names = "--id",
            paramLabel = "ID",
            description = "The decision's id (letters, digits, . _ : -); default: a fresh one. Each task applies a"
                    + " decision once, so the same id sent again changes nothing.")
    private String id;

    @Override
    public Integer call() {
        TtlStreamsConfig loaded = config.load();
        if (loaded.rules().rule(rule).isEmpty()) {
            return CommandFailure.report(
                    spec, "no rule " + rule + " in " + config.describe(), TtlStreamsCli.EXIT_BAD_INPUT);
        }
        GuardDecision decision = new GuardDecision(
                rule, !reject, id != null ? id : UUID.randomUUID().toString());
        String topic = loaded.controlTopic();
        if (dryRun) {
            out("dry run: would send " + decision.toJson() + " to every partition of " + topic + ": each task "
                    + (reject ? "cancels" : "releases") + " the documents it holds for rule " + rule
                    + " (/v1/status and the status line show how many are held)");
            return 0;
        }
        KafkaClientSecurity.of(loaded);
        Properties props = KafkaResyncPublisher.producerProperties(loaded);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, props.getProperty(ProducerConfig.CLIENT_ID_CONFIG) + "-approve");
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            List<PartitionInfo> partitions = producer.partitionsFor(topic);
            List<Future<RecordMetadata>> sends = partitions.stream()
                    .map(partition -> producer.send(
                            new ProducerRecord<>(topic, partition.partition(), decision.id(), decision.toJson())))
                    .toList();
            for (Future<RecordMetadata> send : sends) {
                send.get(SEND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
            out("sent " + decision.verb() + " of rule " + rule + " (decision " + decision.id() + ") to "
                    + partitions.size() + " partitions of " + topic);
            return 0;
        } catch (KafkaException | ExecutionException | TimeoutException e) {
            String why = AccessDenied.in(
                            e,
                            loaded,
                            AclPlan.OPERATOR_USER,
                            Optional.of(new AccessDenied.Request("Write", Acl.Resource.TOPIC, topic)))
                    .map(AccessDenied::message)
                    .orElseGet(e::getMessage);
            return CommandFailure.report(spec, "could not send the decision to " + topic + ": " + why, 1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CommandFailure.report(spec, "interrupted while sending the decision", 1);
        }
    }

    private void out(String line) {
        spec.commandLine().getOut().println(line);
    }
}
