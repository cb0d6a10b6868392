package io.ttlstreams.query;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.ttlstreams.contract.BoundedJson;
import io.ttlstreams.contract.CanonicalJson;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.contract.PercentEncoding;
import io.ttlstreams.http.Json;
import io.ttlstreams.http.OperationsServer;
import io.ttlstreams.http.Request;
import io.ttlstreams.http.Response;
import io.ttlstreams.state.ScheduleQueries.Histogram;
import io.ttlstreams.state.ScheduleQueries.ScheduledDocument;
import io.ttlstreams.state.ScheduleStores;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;
import org.bson.BsonDocument;
import org.bson.BsonString;
import org.bson.BsonValue;

/**
 * The schedule queries: one document's deadline, answered by whichever instance owns the document, and upcoming
 * expiries per time bucket, merged over every instance.
 */
public final class ScheduleEndpoints {

    static final String DOCUMENTS_PREFIX = "/v1/documents/";
    static final String SCHEDULE_PATH = "/v1/schedule";

    /** A histogram has at most this many buckets: enough for a day by minute, small enough for one page. */
    static final int MAX_BUCKETS = 1_440;

    /** The longest bucket: with {@link #MAX_BUCKETS} of them, 1,440 years. */
    static final Duration MAX_BUCKET = Duration.ofDays(366);
    /**
     * The earliest and latest instants {@code from} and {@code to} may name (four-digit years): any two of them are
     * less than 10^15 ms apart, so that no sum or difference of them and a bucket overflows.
     */
    static final Instant EARLIEST = Instant.parse("0000-01-01T00:00:00Z");

    static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999Z");

    private static final Duration DEFAULT_BUCKET = Duration.ofMinutes(1);
    private static final Duration DEFAULT_SPAN = Duration.ofHours(1);
    private static final Pattern SHORT_DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)");
    /** More digits than this are beyond {@link #MAX_BUCKET} in any unit, and beyond a long in some. */
    private static final int MAX_SHORT_DURATION_DIGITS = 12;
    /** An echoed parameter is cut to this many characters. */
    private static final int MAX_ECHOED = 64;
    /** Asks an instance for its own counts only: what the instance that merges sends to the others. */
    private static final String LOCAL_SCOPE = "scope=local";

    private final KafkaStreams streams;
    private final LocalSchedule local;
    private final HostInfo self;
    private final PeerClient peers;
    private final Clock clock;

    public ScheduleEndpoints(KafkaStreams streams, LocalSchedule local, HostInfo self, PeerClient peers, Clock clock) {
        this.streams = streams;
        this.local = local;
        this.self = self;
        this.peers = peers;
        this.clock = clock;
    }

    /** Serves the document lookup and the histogram on {@code server}, as queries. */
    public void register(OperationsServer server) {
        server.serveQueriesUnder(DOCUMENTS_PREFIX, this::document);
        server.serveQuery(SCHEDULE_PATH, this::schedule);
    }

    /**
     * {@code GET /v1/documents/{namespace}/{documentKey}}: 200 with the deadline, rule and state of a scheduled
     * document, 404 for one that is not scheduled; asked of the instance that owns the document's partition.
     */
    Response document(Request request) throws IOException, InterruptedException {
        List<String> segments = request.segmentsAfter(DOCUMENTS_PREFIX);
        if (segments.size() != 2 || segments.get(0).isEmpty() || segments.get(1).isEmpty()) {
            return Response.error(
                    400,
                    "Use " + DOCUMENTS_PREFIX + "{db.coll}/{string _id, or document key as URL-encoded extended JSON},"
                            + " such as " + DOCUMENTS_PREFIX + "app.sessions/s1 or "
                            + DOCUMENTS_PREFIX + "app.sessions/%7B%22_id%22%3A%22s1%22%7D");
        }
        Namespace namespace = Namespace.parse(segments.get(0));
        BsonDocument documentKey = documentKey(segments.get(1));
        // The source connector keys each change event with the document key in canonical extended JSON, and the
        // default partitioner spreads those bytes: the same bytes name the partition, hence the owner.
        KeyQueryMetadata owner = streams.queryMetadataForKey(
                ScheduleStores.INDEX,
                CanonicalJson.of(documentKey),
                Serdes.String().serializer());
        if (owner == null || owner.equals(KeyQueryMetadata.NOT_AVAILABLE) || owner.activeHost() == null) {
            return Response.error(
                    503,
                    "The owner of this document is not known yet (Kafka Streams is " + streams.state()
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
        Optional<ScheduledDocument> found = local.find(owner.partition(), namespace, documentKey);
        Json.Raw key = new Json.Raw(CanonicalJson.of(documentKey));
        String instance = OperationsServer.hostPort(self);
        if (found.isEmpty()) {
            return Response.json(404, new NotScheduled(namespace.toString(), key, "not-scheduled", instance));
        }
        Instant deadline = found.get().deadline();
        return Response.json(
                200,
                new Scheduled(
                        namespace.toString(),
                        key,
                        deadline.isAfter(clock.instant()) ? "scheduled" : "due",
                        deadline,
                        found.get().rule(),
                        instance,
                        owner.partition()));
    }

    /**
     * {@code GET /v1/schedule?namespace=&from=&to=&bucket=}: documents expiring per bucket, over every instance.
     * Defaults: the current minute, one hour, one-minute buckets.
     */
    Response schedule(Request request) throws IOException, InterruptedException {
        Duration bucket =
                request.parameter("bucket").map(ScheduleEndpoints::bucket).orElse(DEFAULT_BUCKET);
        // Every value below is bounded before it is used: the bucket by MAX_BUCKET, from and to by EARLIEST and
        // LATEST (the default to is at most an hour past LATEST), so no arithmetic on them overflows.
        long bucketMillis = bucket.toMillis();
        long from = request.parameter("from")
                .map(text -> instant("from", text))
                .orElseGet(() -> Math.floorDiv(clock.millis(), bucketMillis) * bucketMillis);
        long to = request.parameter("to")
                .map(text -> instant("to", text))
                .orElse(Math.addExact(from, DEFAULT_SPAN.toMillis()));
        if (to <= from) {
            throw new IllegalArgumentException("to: must be after from");
        }
        long buckets = Math.addExact(Math.subtractExact(to, from), bucketMillis - 1) / bucketMillis;
        if (buckets > MAX_BUCKETS) {
            throw new IllegalArgumentException("bucket: from..to holds " + buckets + " buckets of " + bucket
                    + "; at most " + MAX_BUCKETS + " are answered: widen bucket or narrow from..to");
        }
        Optional<Namespace> namespace = request.parameter("namespace").map(Namespace::parse);
        if (request.query().containsKey("scope")) {
            return Response.json(200, localCounts(local.upcoming(from, to, bucketMillis, namespace)));
        }
        String peerQuery = SCHEDULE_PATH + "?" + LOCAL_SCOPE + "&from=" + Instant.ofEpochMilli(from) + "&to="
                + Instant.ofEpochMilli(to) + "&bucket=" + bucketMillis + "ms"
                + namespace
                        .map(ns -> "&namespace=" + PercentEncoding.encode(ns.toString()))
                        .orElse("");
        SortedMap<Long, Long> merged = new TreeMap<>();
        boolean complete = true;
        List<InstanceCounts> instances = new ArrayList<>();
        for (HostInfo instance : instances()) {
            String name = OperationsServer.hostPort(instance);
            try {
                Histogram counts = instance.equals(self)
                        ? local.upcoming(from, to, bucketMillis, namespace)
                        : peerCounts(instance, peerQuery);
                counts.counts().forEach((start, count) -> merged.merge(start, count, Long::sum));
                complete &= counts.complete();
                instances.add(new InstanceCounts(name, counts.complete(), total(counts.counts()), null));
            } catch (IOException e) {
                complete = false;
                instances.add(new InstanceCounts(name, null, null, e.getMessage()));
            }
        }
        List<Bucket> rows = new ArrayList<>();
        for (long start = from; start < to; start += bucketMillis) {
            rows.add(new Bucket(Instant.ofEpochMilli(start), merged.getOrDefault(start, 0L)));
        }
        return Response.json(
                200,
                new Upcoming(
                        Instant.ofEpochMilli(from),
                        Instant.ofEpochMilli(to),
                        bucket.toString(),
                        namespace.map(Namespace::toString),
                        complete,
                        total(merged),
                        rows,
                        instances));
    }

    /** Every instance of the application that announced an {@code application.server}; this one alone before. */
    private List<HostInfo> instances() {
        List<HostInfo> hosts = new ArrayList<>(streams.metadataForAllStreamsClients().stream()
                .map(StreamsMetadata::hostInfo)
                .distinct()
                .toList());
        if (!hosts.contains(self)) {
            hosts.add(0, self);
        }
        return hosts;
    }

    private Histogram peerCounts(HostInfo instance, String query) throws IOException, InterruptedException {
        Response response = peers.get(instance, query);
        if (response.status() != 200) {
            throw new IOException(
                    "HTTP " + response.status() + ": " + response.bodyText().strip());
        }
        try {
            BsonDocument json = BoundedJson.parse(response.bodyText());
            SortedMap<Long, Long> counts = new TreeMap<>();
            for (Map.Entry<String, BsonValue> count : json.getDocument("counts").entrySet()) {
                counts.put(
                        Long.parseLong(count.getKey()),
                        count.getValue().asNumber().longValue());
            }
            return new Histogram(counts, json.getBoolean("complete").getValue());
        } catch (RuntimeException e) {
            throw new IOException("unreadable answer: " + e.getMessage(), e);
        }
    }

    private LocalCounts localCounts(Histogram histogram) {
        Map<String, Long> counts = new LinkedHashMap<>();
        histogram.counts().forEach((start, count) -> counts.put(Long.toString(start), count));
        return new LocalCounts(OperationsServer.hostPort(self), histogram.complete(), counts);
    }

    private static long total(Map<Long, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The answer for a document that is not scheduled (404). */
    record NotScheduled(String namespace, Json.Raw documentKey, String state, String instance) {}

    /**
     * The answer for a scheduled document.
     *
     * @param state {@code scheduled}, or {@code due} once its deadline passed
     */
    record Scheduled(
            String namespace,
            Json.Raw documentKey,
            String state,
            Instant deadline,
            String rule,
            String instance,
            int partition) {}

    /** The merged histogram of {@code GET /v1/schedule}. */
    record Upcoming(
            Instant from,
            Instant to,
            String bucket,
            Optional<String> namespace,
            boolean complete,
            long total,
            List<Bucket> buckets,
            List<InstanceCounts> instances) {}

    /** One bucket of the merged histogram. */
    record Bucket(Instant start, long count) {}

    /** What one instance answered: its completeness and total, or the error that stood for it. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record InstanceCounts(String instance, Boolean complete, Long total, String error) {}

    /** One instance's own counts ({@code scope=local}), keyed by bucket start in epoch milliseconds. */
    record LocalCounts(String instance, boolean complete, Map<String, Long> counts) {}

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
     * An ISO-8601 instant ({@code 2026-01-01T00:00:00Z}) as epoch milliseconds.
     *
     * @throws IllegalArgumentException otherwise
     */
    static long instant(String parameter, String text) {
        Instant instant;
        try {
            instant = Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(
                    parameter + ": " + echoed(text) + " is not an ISO-8601 instant such as 2026-01-01T00:00:00Z", e);
        }
        if (instant.isBefore(EARLIEST) || instant.isAfter(LATEST)) {
            throw new IllegalArgumentException(
                    parameter + ": " + echoed(text) + " is outside " + EARLIEST + ".." + LATEST);
        }
        return instant.toEpochMilli();
    }

    /**
     * The {@code bucket} parameter: a {@link #duration} from 1 ms to {@link #MAX_BUCKET}.
     *
     * @throws IllegalArgumentException otherwise, naming the parameter
     */
    static Duration bucket(String text) {
        Duration bucket;
        try {
            bucket = duration(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("bucket: " + e.getMessage(), e);
        }
        if (bucket.compareTo(Duration.ofMillis(1)) < 0 || bucket.compareTo(MAX_BUCKET) > 0) {
            throw new IllegalArgumentException(
                    "bucket: " + echoed(text) + " is not between 1ms and " + MAX_BUCKET.toDays() + "d");
        }
        return bucket;
    }

    /**
     * An ISO-8601 duration ({@code PT5M}) or a short one: a whole number and ms, s, m, h or d ({@code 5m}).
     *
     * @throws IllegalArgumentException otherwise
     */
    static Duration duration(String text) {
        Matcher shortForm = SHORT_DURATION.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (shortForm.matches()) {
            if (shortForm.group(1).length() > MAX_SHORT_DURATION_DIGITS) {
                throw new IllegalArgumentException(echoed(text) + " is too long a duration");
            }
            long amount = Long.parseLong(shortForm.group(1));
            return switch (shortForm.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> Duration.ofDays(amount);
            };
        }
        try {
            return Duration.parse(text);
        } catch (DateTimeParseException | ArithmeticException e) {
            throw new IllegalArgumentException(echoed(text) + " is not a duration such as 30s, 5m, 1h or PT5M", e);
        }
    }

    /** A parameter's text as an error message quotes it: cut, and written by {@link Json} like any text. */
    private static String echoed(String text) {
        return "'" + (text.length() <= MAX_ECHOED ? text : text.substring(0, MAX_ECHOED) + "...") + "'";
    }
}
