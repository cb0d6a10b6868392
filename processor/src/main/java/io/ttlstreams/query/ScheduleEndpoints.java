package io.ttlstreams.query;

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
                    "Use " + DOCUMENTS_PREFIX + "{db.coll}/{document key as URL-encoded extended" + " JSON}, such as "
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
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("namespace", namespace.toString());
        json.put("documentKey", new Json.Raw(CanonicalJson.of(documentKey)));
        if (found.isEmpty()) {
            json.put("state", "not-scheduled");
            json.put("instance", OperationsServer.hostPort(self));
            return Response.json(404, json);
        }
        Instant deadline = found.get().deadline();
        json.put("state", deadline.isAfter(clock.instant()) ? "scheduled" : "due");
        json.put("deadline", deadline);
        json.put("rule", found.get().rule());
        json.put("instance", OperationsServer.hostPort(self));
        json.put("partition", owner.partition());
        return Response.json(200, json);
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
        List<Map<String, Object>> instances = new ArrayList<>();
        for (HostInfo instance : instances()) {
            Map<String, Object> described = new LinkedHashMap<>();
            described.put("instance", OperationsServer.hostPort(instance));
            try {
                Histogram counts = instance.equals(self)
                        ? local.upcoming(from, to, bucketMillis, namespace)
                        : peerCounts(instance, peerQuery);
                counts.counts().forEach((start, count) -> merged.merge(start, count, Long::sum));
                complete &= counts.complete();
                described.put("complete", counts.complete());
                described.put(
                        "total",
                        counts.counts().values().stream()
                                .mapToLong(Long::longValue)
                                .sum());
            } catch (IOException e) {
                complete = false;
                described.put("error", e.getMessage());
            }
            instances.add(described);
        }
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("from", Instant.ofEpochMilli(from));
        json.put("to", Instant.ofEpochMilli(to));
        json.put("bucket", bucket.toString());
        json.put("namespace", namespace.map(Namespace::toString));
        json.put("complete", complete);
        json.put("total", merged.values().stream().mapToLong(Long::longValue).sum());
        List<Map<String, Object>> rows = new ArrayList<>();
        for (long start = from; start < to; start += bucketMillis) {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("start", Instant.ofEpochMilli(start));
            row.put("count", merged.getOrDefault(start, 0L));
            rows.add(row);
        }
        json.put("buckets", rows);
        json.put("instances", instances);
        return Response.json(200, json);
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

    private Map<String, Object> localCounts(Histogram histogram) {
        Map<String, Object> counts = new LinkedHashMap<>();
        histogram.counts().forEach((start, count) -> counts.put(Long.toString(start), count));
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("instance", OperationsServer.hostPort(self));
        json.put("complete", histogram.complete());
        json.put("counts", counts);
        return json;
    }

    /**
     * A document key from its extended JSON.
     *
     * @throws IllegalArgumentException when it is not a JSON document
     */
    static BsonDocument documentKey(String json) {
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
