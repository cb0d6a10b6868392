package io.ttlstreams.query;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.ttlstreams.contract.BoundedJson;
import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.http.Json;
import io.ttlstreams.http.OperationsServer;
import io.ttlstreams.http.Request;
import io.ttlstreams.http.Response;
import io.ttlstreams.schema.UnscheduledNote;
import io.ttlstreams.state.ScheduleQueries.ScheduledDocument;
import io.ttlstreams.state.UnscheduledNotes;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.state.HostInfo;
import org.bson.BsonDocument;
import org.bson.BsonString;

/**
 * {@code GET /v1/documents/{namespace}/{documentKey}}: one document's deadline, rule and state (200), or why it is
 * not scheduled (404): the reason the rules gave for its latest change event, as {@code explain} gives it, or that
 * the processor remembers no event of it. Answered by the instance that owns the document's partition; another one
 * forwards the question there.
 */
final class DocumentEndpoint {

    static final String PREFIX = "/v1/documents/";

    /** What a 404 says when the processor holds nothing of the document. */
    static final String NEVER_SEEN = "never seen: this instance remembers no change event of this document (never"
            + " inserted or changed since the processor began reading, deleted, or its note gave way to those of"
            + " later unscheduled documents, " + UnscheduledNotes.SLOTS + " per partition); ./ttl-streams explain"
            + " tells what the rules make of a document";

    /** Where documents are: the owner of each one's partition, and what the owner's stores hold of it. */
    interface Lookup {

        /** The partition of the document and the instance that owns it; {@code NOT_AVAILABLE} while unknown. */
        KeyQueryMetadata owner(BsonDocument documentKey);

        /** Kafka Streams' state, for the answer that the owner is not known yet. */
        String state();

        /** The document's schedule entry in a partition this instance owns. */
        Optional<ScheduledDocument> scheduled(int partition, Namespace namespace, BsonDocument documentKey);

        /** Why the document is not scheduled, if that partition's notes hold it. */
        Optional<UnscheduledNote> note(int partition, Namespace namespace, BsonDocument documentKey);
    }

    private final Lookup lookup;
    private final HostInfo self;
    private final PeerClient peers;
    private final Clock clock;

    DocumentEndpoint(Lookup lookup, HostInfo self, PeerClient peers, Clock clock) {
        this.lookup = lookup;
        this.self = self;
        this.peers = peers;
        this.clock = clock;
    }

    Response document(Request request) throws IOException, InterruptedException {
        List<String> segments = request.segmentsAfter(PREFIX);
        if (segments.size() != 2 || segments.get(0).isEmpty() || segments.get(1).isEmpty()) {
            return Response.error(
                    400,
                    "Use " + PREFIX + "{db.coll}/{string _id, or document key as URL-encoded extended JSON}, such as "
                            + PREFIX + "app.sessions/s1 or " + PREFIX + "app.sessions/%7B%22_id%22%3A%22s1%22%7D");
        }
        Namespace namespace = Namespace.parse(segments.get(0));
        BsonDocument documentKey = documentKey(segments.get(1));
        KeyQueryMetadata owner = lookup.owner(documentKey);
        if (owner == null || owner.equals(KeyQueryMetadata.NOT_AVAILABLE) || owner.activeHost() == null) {
            return Response.error(
                    503,
                    "The owner of this document is not known yet (Kafka Streams is " + lookup.state()
                            + "); retry shortly");
        }
        if (!owner.activeHost().equals(self)) {
            if (request.forwarded()) {
                return Response.error(
                        503,
                        "Partition " + owner.partition() + " moved to " + OperationsServer.hostPort(owner.activeHost())
                                + " while the request was forwarded; retry");
            }
            return peers.get(owner.activeHost(), request.pathAndQuery());
        }
        Json.Raw key = new Json.Raw(CanonicalJson.of(documentKey));
        String instance = OperationsServer.hostPort(self);
        Optional<ScheduledDocument> found = lookup.scheduled(owner.partition(), namespace, documentKey);
        if (found.isPresent()) {
            Instant deadline = found.get().deadline();
            return Response.json(
                    200,
                    new Scheduled(
                            namespace.toString(),
                            key,
                            deadline.isAfter(clock.instant()) ? "scheduled" : "due",
                            deadline,
                            found.get().notice(),
                            found.get().rule(),
                            instance,
                            owner.partition()));
        }
        Optional<UnscheduledNote> note = lookup.note(owner.partition(), namespace, documentKey);
        return Response.json(
                404,
                new NotScheduled(
                        namespace.toString(),
                        key,
                        "not-scheduled",
                        note.isPresent(),
                        note.map(UnscheduledNote::getReason).orElse(NEVER_SEEN),
                        note.map(UnscheduledNote::getOperation).orElse(null),
                        note.map(UnscheduledNote::getSince).orElse(null),
                        instance,
                        owner.partition()));
    }

    /**
     * A document key from its extended JSON, or, for a segment that does not look like JSON, the string {@code _id}
     * it spells ({@code long0} is {@code {"_id": "long0"}}), as most ids a newcomer types are strings. A number or an
     * ObjectId needs the JSON form, since {@code 42} alone could be either.
     *
     * @throws IllegalArgumentException when it starts like JSON but is not a JSON document
     */
    static BsonDocument documentKey(String json) {
        char first = json.isEmpty() ? ' ' : json.charAt(0);
        if (first != '{' && first != '"' && first != '[' && !Character.isWhitespace(first)) {
            return new BsonDocument("_id", new BsonString(json));
        }
        try {
            // Read with a nesting limit: the BSON library alone recurses per level, and a deep key overflows the stack.
            return BoundedJson.parse(json);
        } catch (RuntimeException e) {
            // Any exception of the BSON library's readers (JsonParseException, BSONException, NumberFormatException).
            throw new IllegalArgumentException(
                    "documentKey must be a JSON document such as {\"_id\": \"s1\"}, percent-encoded as a path"
                            + " segment (a '+' there is a plus sign: encode spaces as %20): " + e.getMessage(),
                    e);
        }
    }

    /**
     * The answer for a document that is not scheduled (404).
     *
     * @param seen whether the processor remembers a change event of the document
     * @param reason why it is not scheduled: the rules' reason for its latest change event, or that it was never seen
     * @param operation the operation of the event that gave the reason; absent when never seen
     * @param since the time of the first event that gave the reason; absent when never seen
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record NotScheduled(
            String namespace,
            Json.Raw documentKey,
            String state,
            boolean seen,
            String reason,
            String operation,
            Instant since,
            String instance,
            int partition) {}

    /**
     * The answer for a scheduled document.
     *
     * @param state {@code scheduled}, or {@code due} once its deadline passed
     * @param notice when its {@code EXPIRING} notice is due, while one is pending; null otherwise
     */
    record Scheduled(
            String namespace,
            Json.Raw documentKey,
            String state,
            Instant deadline,
            Instant notice,
            String rule,
            String instance,
            int partition) {}
}
