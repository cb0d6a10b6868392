package io.ttlstreams.query;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.ttlstreams.contract.BoundedJson;
import io.ttlstreams.contract.Namespace;
import io.ttlstreams.contract.PercentEncoding;
import io.ttlstreams.http.OperationsServer;
import io.ttlstreams.http.Request;
import io.ttlstreams.http.Response;
import io.ttlstreams.state.ScheduleQueries.Histogram;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;
import org.bson.BsonDocument;
import org.bson.BsonValue;

/**
 * {@code GET /v1/schedule?namespace=&from=&to=&bucket=}: documents expiring per time bucket, merged over every
 * instance, each asked for its own counts ({@code scope=local}). Defaults: the current minute, one hour, one-minute
 * buckets.
 */
final class ScheduleHistogram {

    static final String PATH = "/v1/schedule";

    /** A histogram has at most this many buckets: enough for a day by minute, small enough for one page. */
    static final int MAX_BUCKETS = 1_440;

    private static final Duration DEFAULT_BUCKET = Duration.ofMinutes(1);
    private static final Duration DEFAULT_SPAN = Duration.ofHours(1);
    /** Asks an instance for its own counts only: what the instance that merges sends to the others. */
    private static final String LOCAL_SCOPE = "scope=local";

    private final KafkaStreams streams;
    private final LocalSchedule local;
    private final HostInfo self;
    private final PeerClient peers;
    private final Clock clock;

    ScheduleHistogram(KafkaStreams streams, LocalSchedule local, HostInfo self, PeerClient peers, Clock clock) {
        this.streams = streams;
        this.local = local;
        this.self = self;
        this.peers = peers;
        this.clock = clock;
    }

    Response schedule(Request request) throws IOException, InterruptedException {
        Duration bucket =
                request.parameter("bucket").map(QueryParameters::bucket).orElse(DEFAULT_BUCKET);
        // Every value below is bounded before it is used: the bucket by MAX_BUCKET, from and to by EARLIEST and
        // LATEST (the default to is at most an hour past LATEST), so no arithmetic on them overflows.
        long bucketMillis = bucket.toMillis();
        long from = request.parameter("from")
                .map(text -> QueryParameters.instant("from", text))
                .orElseGet(() -> Math.floorDiv(clock.millis(), bucketMillis) * bucketMillis);
        long to = request.parameter("to")
                .map(text -> QueryParameters.instant("to", text))
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
            Histogram counts = local.upcoming(from, to, bucketMillis, namespace);
            return Response.json(
                    200, new LocalCounts(OperationsServer.hostPort(self), counts.complete(), counts.counts()));
        }
        String peerQuery = PATH + "?" + LOCAL_SCOPE + "&from=" + Instant.ofEpochMilli(from) + "&to="
                + Instant.ofEpochMilli(to) + "&bucket=" + bucketMillis + "ms"
                + namespace
                        .map(ns -> "&namespace=" + PercentEncoding.encode(ns.toString()))
                        .orElse("");
        Histogram merged = Histogram.EMPTY;
        List<InstanceCounts> instances = new ArrayList<>();
        for (HostInfo instance : instances()) {
            String name = OperationsServer.hostPort(instance);
            try {
                Histogram counts = instance.equals(self)
                        ? local.upcoming(from, to, bucketMillis, namespace)
                        : peerCounts(instance, peerQuery);
                merged = merged.plus(counts);
                instances.add(new InstanceCounts(name, counts.complete(), total(counts.counts()), null));
            } catch (IOException e) {
                merged = merged.plus(new Histogram(Collections.emptySortedMap(), false)); // its counts are missing
                instances.add(new InstanceCounts(name, null, null, e.getMessage()));
            }
        }
        List<Bucket> rows = new ArrayList<>();
        for (long start = from; start < to; start += bucketMillis) {
            rows.add(new Bucket(Instant.ofEpochMilli(start), merged.counts().getOrDefault(start, 0L)));
        }
        return Response.json(
                200,
                new Upcoming(
                        Instant.ofEpochMilli(from),
                        Instant.ofEpochMilli(to),
                        bucket.toString(),
                        namespace.map(Namespace::toString),
                        merged.complete(),
                        total(merged.counts()),
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

    private static long total(Map<Long, Long> counts) {
        return counts.values().stream().mapToLong(Long::longValue).sum();
    }

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
    record LocalCounts(String instance, boolean complete, SortedMap<Long, Long> counts) {}
}
