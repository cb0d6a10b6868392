package io.ttlstreams.app;

import io.ttlstreams.config.SourceProfile;
import io.ttlstreams.config.TopicNamespaceMapping;
import io.ttlstreams.config.TtlStreamsConfig;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.event.ChangeEvent;
import io.ttlstreams.event.ChangeEventParser;
import io.ttlstreams.event.InvalidChangeEventException;
import io.ttlstreams.event.OperationType;
import io.ttlstreams.rules.Deadlines;
import io.ttlstreams.rules.ExpiryDecision;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.bson.BsonBoolean;
import org.bson.BsonDocument;
import org.bson.BsonNull;
import org.bson.BsonString;
import org.bson.BsonValue;
import org.bson.json.JsonMode;
import org.bson.json.JsonParseException;
import org.bson.json.JsonWriterSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code ttl-streams explain}: tells whether and when a document expires under the configured rules,
 * through the very {@link io.ttlstreams.rules.TtlRules#evaluate} call the processor makes for each
 * change event. Given a change event as the source connector publishes it ({@code --event}) instead of a document,
 * it reads it with the processor's {@link ChangeEventParser} first: any shape MongoDB emits (an update by operators or
 * by pipeline, with {@code truncatedArrays} and {@code disambiguatedPaths}, a replace, expanded fields), the document
 * being its {@code fullDocument} and the change time its {@code wallTime}.
 */
@Command(
        name = "explain",
        mixinStandardHelpOptions = true,
        description = {
            "Explain whether and when a document expires under the configured TTL rules.",
            "Prints one JSON object: {\"expires\": ..., \"deadline\": ..., \"rule\": ..., \"reason\": ...,"
                    + " \"source\": ...}, the source saying what the service of ttl.source.profile supports."
        },
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:the document was evaluated", "2:invalid configuration, document or arguments"})
final class ExplainCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private ConfigSource config;

    @Option(names = "--namespace", required = true, paramLabel = "DB.COLL", description = "The document's namespace.")
    private String namespace;

    @Option(
            names = "--document",
            paramLabel = "JSON",
            description = "The document in (extended) JSON, or @path to a file holding it.")
    private String document;

    @Option(
            names = "--event",
            paramLabel = "JSON",
            description = "Instead of --document: a change event as the source connector publishes it (extended JSON),"
                    + " or @path to a file holding it; its fullDocument is evaluated at its wallTime.")
    private String event;

    /** How the answer is printed: plain JSON numbers, not extended JSON's type wrappers. */
    private static final JsonWriterSettings RELAXED =
            JsonWriterSettings.builder().outputMode(JsonMode.RELAXED).build();

    /** The topic name parse errors give for an --event; it carries the --namespace. */
    private static final String EVENT_TOPIC = "--event";

    @Option(
            names = "--event-time",
            paramLabel = "ISO-8601",
            description = "Time of the change event, for last-modified rules (default: now).")
    private String eventTime;

    @Override
    public Integer call() {
        TtlStreamsConfig ttlConfig = config.load();
        if ((document == null) == (event == null)) {
            throw new IllegalArgumentException("give either --document or --event");
        }
        if (event != null) {
            spec.commandLine().getOut().println(explainEvent(ttlConfig));
            return 0;
        }
        Instant at = parseEventTime();
        ExpiryDecision decision = ttlConfig
                .rules()
                .evaluate(ResyncCommand.parseNamespace(namespace), parseDocument(read("--document", document)), at);
        spec.commandLine().getOut().println(answer(decision, ttlConfig, at).toJson(RELAXED));
        return 0;
    }

    /** The text of an option that takes JSON or {@code @path}. */
    private static String read(String option, String value) {
        if (!value.startsWith("@")) {
            return value;
        }
        Path file = Path.of(value.substring(1));
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new IllegalArgumentException(option + ": cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    private static BsonDocument parseDocument(String json) {
        try {
            return BsonDocument.parse(json);
        } catch (JsonParseException | org.bson.BsonInvalidOperationException e) {
            throw new IllegalArgumentException("--document is not a JSON document: " + e.getMessage(), e);
        }
    }

    /**
     * What the processor does with the change event of {@code --event}: its document evaluated at the event's time, or
     * why no document is evaluated (a delete, a namespace-wide event, an update whose document was gone at lookup).
     */
    private String explainEvent(TtlStreamsConfig ttlConfig) {
        Namespace namespace = ResyncCommand.parseNamespace(this.namespace);
        ChangeEventParser parser = new ChangeEventParser(
                new TopicNamespaceMapping(Map.of(EVENT_TOPIC, namespace), null),
                ttlConfig.documentKeyMaxBytes(),
                ttlConfig.sourceProfile());
        ChangeEvent parsed;
        try {
            parsed = parser.parse(EVENT_TOPIC, null, read("--event", event), 0L);
        } catch (InvalidChangeEventException e) {
            throw new IllegalArgumentException("--event: " + e.getMessage(), e);
        }
        Instant changeTime = eventTime == null ? parsed.eventTime() : parseEventTime();
        String operation = parsed.operationType().name().toLowerCase(Locale.ROOT);
        ExpiryDecision decision;
        if (parsed.operationType() == OperationType.DELETE) {
            decision = ExpiryDecision.never("a delete event: the document is gone, and its schedule entry with it");
        } else if (parsed.isNamespaceWide()) {
            decision = ExpiryDecision.never(
                    "a " + operation + " event: every document of " + parsed.namespace() + " leaves the schedule");
        } else if (parsed.operationType() == OperationType.OTHER) {
            decision = ExpiryDecision.never("an event of an operation the processor ignores");
        } else if (parsed.fullDocument() == null) {
            decision = ExpiryDecision.never("the event carries no full document (fullDocument null or missing): the"
                    + " document was gone when the source connector looked it up, and its delete event follows; or, on a"
                    + " sharded collection, the look-up missed it after a shard key change, and the processor reads it"
                    + " again by _id where read-back is on");
        } else {
            decision = ttlConfig.rules().evaluate(parsed.namespace(), parsed.fullDocument(), changeTime);
        }
        return answer(decision, ttlConfig, changeTime)
                .append(
                        "event",
                        new BsonDocument("operationType", new BsonString(operation))
                                .append(
                                        "documentKey",
                                        parsed.documentKey() == null ? BsonNull.VALUE : parsed.documentKey())
                                .append("changeTime", new BsonString(Deadlines.format(changeTime))))
                .toJson(RELAXED);
    }

    private Instant parseEventTime() {
        if (eventTime == null) {
            return Instant.now();
        }
        try {
            return Instant.parse(eventTime);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    "--event-time must be an ISO-8601 instant such as " + "2026-01-01T00:00:00Z, was '" + eventTime
                            + "'",
                    e);
        }
    }

    /**
     * The decision, and what the configured source profile supports: which service, how deletes are confirmed,
     * whether its change streams report deletes, what one connector watches, and which pipeline it gets; and the
     * expiry events it would produce ({@link ExpiryEventsExplanation}) if scheduled at {@code at}.
     */
    private static BsonDocument answer(ExpiryDecision decision, TtlStreamsConfig config, Instant at) {
        SourceProfile profile = config.sourceProfile();
        String pipeline = profile.requiresFixedPipeline()
                ? "fixed by the service: whole documents, no operation type or event times"
                : profile.takesFullPipeline()
                        ? "full: operation and collection filter, document-key bound, projection of the rules' fields"
                        : "documented stages only: operation and collection filter, projection of the rules' fields";
        BsonDocument source = new BsonDocument("profile", new BsonString(profile.configValue()))
                .append("service", new BsonString(profile.service()))
                .append("confirm.mode", new BsonString(config.confirmMode().configValue()))
                .append("delete.events", BsonBoolean.valueOf(profile.reportsDeletes()))
                .append("watch", new BsonString(profile.watchesDatabases() ? "database" : "collection"))
                .append("pipeline", new BsonString(pipeline));
        BsonValue deadline =
                decision.expires() ? new BsonString(Deadlines.format(decision.deadline())) : BsonNull.VALUE;
        BsonValue rule = decision.rule() == null ? BsonNull.VALUE : new BsonString(decision.rule());
        return new BsonDocument("expires", BsonBoolean.valueOf(decision.expires()))
                .append("deadline", deadline)
                .append("rule", rule)
                .append("reason", new BsonString(decision.reason()))
                .append("source", source)
                .append("expiry.events", ExpiryEventsExplanation.of(decision, config, at));
    }
}
