package io.ttlstreams.app;

import com.mongodb.MongoException;
import com.mongodb.client.MongoClient;
import io.ttlstreams.config.KafkaClientSecurity;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.resync.KafkaResyncPublisher;
import io.ttlstreams.resync.Resync;
import io.ttlstreams.resync.ResyncProgress;
import io.ttlstreams.resync.ResyncReport;
import io.ttlstreams.resync.ResyncSelection;
import io.ttlstreams.resync.ResyncSink;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ttl-streams resync}: reads the rules' documents from MongoDB and publishes a resync event per document to its
 * namespace's source topic, so that the processor schedules documents the change stream never delivered to it. With
 * {@code --dry-run}, only prints what the rules would schedule.
 */
@Command(
        name = "resync",
        mixinStandardHelpOptions = true,
        description = {
            "Read the rules' documents from MongoDB (ttl.mongodb.uri) and publish a resync event per document to its"
                    + " namespace's source topic, so that the processor schedules documents whose change events it"
                    + " never saw: a rule added over existing data, a lost resume token, a processor started after the"
                    + " events' retention. The processor ignores a resync older than the latest change it applied.",
            "Prints progress, then a summary per namespace and rule."
        },
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {
            "0:the documents were read (and, without --dry-run, published)",
            "1:MongoDB could not be read or Kafka could not be written",
            "2:invalid configuration or arguments, or (without --dry-run) a source topic the processor's consumer"
                    + " group does not read"
        })
final class ResyncCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private ConfigSource config;

    @Option(
            names = "--namespace",
            paramLabel = "DB.COLL",
            description = "Only this collection (which a rule must cover). Default: every namespace of the rules.")
    private String namespace;

    @Option(
            names = "--rule",
            paramLabel = "NAME",
            description = "Only the namespaces of this rule. Each document still carries every field any rule of its"
                    + " namespace reads, as the processor evaluates them all.")
    private String rule;

    @Option(
            names = "--dry-run",
            description = "Publish nothing: print, per rule, how many documents would be scheduled, their first and"
                    + " last deadline and how many are already due.")
    private boolean dryRun;

    @Override
    public Integer call() {
        TtlStreamsConfig ttlConfig = config.load();
        ResyncSelection selection = new ResyncSelection(
                Optional.ofNullable(namespace).map(ResyncCommand::parseNamespace), Optional.ofNullable(rule));
        if (!dryRun) {
            if (ttlConfig.streamsProperties().getProperty(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG) == null) {
                return CommandFailure.report(
                        spec,
                        config.describe()
                                + " sets no bootstrap.servers: name the Kafka cluster the resync events go to (or use"
                                + " --dry-run)",
                        TtlStreamsCli.EXIT_BAD_INPUT);
            }
            // Published as the processor's user, with its client settings.
            KafkaClientSecurity.of(ttlConfig);
        }
        PrintWriter out = spec.commandLine().getOut();
        try (MongoClient client = Resync.mongoClient(ttlConfig)) {
            Optional<String> refusal = dryRun ? Optional.empty() : ResyncTargets.refusal(ttlConfig);
            if (refusal.isPresent()) {
                return CommandFailure.report(spec, refusal.get(), TtlStreamsCli.EXIT_BAD_INPUT);
            }
            try (ResyncSink sink = dryRun ? null : KafkaResyncPublisher.create(ttlConfig)) {
                ResyncReport report = new Resync(ttlConfig, client, Clock.systemUTC())
                        .run(
                                selection,
                                Optional.ofNullable(sink),
                                ResyncProgress.console(out, System.console() != null, Clock.systemUTC()));
                out.print(report.summary());
                out.flush();
                return 0;
            }
        } catch (ConfigException e) {
            throw e; // bad input, not a failure of Kafka
        } catch (MongoException | KafkaException e) {
            return CommandFailure.report(spec, e.getMessage(), 1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CommandFailure.report(spec, "interrupted", 1);
        }
    }

    /** {@code --namespace} of {@code resync} and {@code explain}, read as a namespace. */
    static Namespace parseNamespace(String text) {
        try {
            return Namespace.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--namespace must be DB.COLL: " + e.getMessage(), e);
        }
    }
}
