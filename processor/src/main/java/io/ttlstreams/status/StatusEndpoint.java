package io.ttlstreams.status;

import io.ttlstreams.contract.Namespace;
import io.ttlstreams.health.ConnectorMonitor;
import io.ttlstreams.health.Health;
import io.ttlstreams.health.SourceFreshness;
import io.ttlstreams.http.OperationsServer;
import io.ttlstreams.http.Response;
import io.ttlstreams.metrics.ExpiryMetrics;
import io.ttlstreams.metrics.ScheduleMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.DoubleSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.state.HostInfo;

/**
 * {@code GET /v1/status}, this instance at a glance as JSON, and {@code GET /}, the status page that shows it with
 * the upcoming-expiries histogram ({@code status.html}: one file, plain SVG, no build step, refreshing itself).
 */
public final class StatusEndpoint {

    /** This instance at a glance, as JSON. */
    public static final String STATUS_PATH = "/v1/status";

    private static final String PAGE = "status.html";

    private final KafkaStreams streams;
    private final HostInfo self;
    private final Health health;
    private final ScheduleMetrics schedule;
    private final ExpiryMetrics expiries;
    private final DoubleSupplier deadLettered;
    private final Optional<ConnectorMonitor> connectors;
    private final SourceFreshness sources;
    private final byte[] page;

    public StatusEndpoint(
            KafkaStreams streams,
            HostInfo self,
            Health health,
            ScheduleMetrics schedule,
            ExpiryMetrics expiries,
            DoubleSupplier deadLettered,
            Optional<ConnectorMonitor> connectors,
            SourceFreshness sources) {
        this.streams = streams;
        this.self = self;
        this.health = health;
        this.schedule = schedule;
        this.expiries = expiries;
        this.deadLettered = deadLettered;
        this.connectors = connectors;
        this.sources = sources;
        this.page = readPage();
    }

    /** Serves the status page at {@code /} and {@code /index.html}, and the status report as a query. */
    public void register(OperationsServer server) {
        server.serve("/", request -> page());
        server.serve("/index.html", request -> page());
        server.serveQuery(STATUS_PATH, request -> status());
    }

    Response page() {
        return new Response(200, "text/html; charset=utf-8", page);
    }

    Response status() {
        Health.Report ready = health.ready();
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("instance", OperationsServer.hostPort(self));
        json.put("state", ready.state().toString());
        json.put("ready", ready.up());
        json.put("reasons", ready.reasons());
        json.put("tasks", tasks());
        ScheduleMetrics.Snapshot figures = schedule.snapshot();
        Map<String, Object> scheduleJson = new LinkedHashMap<>();
        scheduleJson.put("scheduled", figures.scheduled());
        scheduleJson.put("due", figures.backlog());
        scheduleJson.put("dueComplete", figures.backlogComplete());
        scheduleJson.put("oldestOverdueSeconds", figures.oldestOverdueSeconds());
        scheduleJson.put("awaitingConfirmation", figures.awaiting());
        json.put("schedule", scheduleJson);
        json.put("deletesEmitted", expiries.deletesEmitted());
        json.put("deletesConfirmed", expiries.deletesConfirmed());
        json.put("deletesUnconfirmed", expiries.deletesUnconfirmed());
        json.put("deadLettered", deadLettered.getAsDouble());
        ExpiryMetrics.LagSummary lag = expiries.lagSummary();
        Map<String, Object> lagJson = new LinkedHashMap<>();
        lagJson.put("count", lag.count());
        lagJson.put("p50Seconds", lag.p50Seconds());
        lagJson.put("p99Seconds", lag.p99Seconds());
        lagJson.put("maxSeconds", lag.maxSeconds());
        json.put("expiryLag", lagJson);
        json.put("connectors", connectors.map(ConnectorMonitor::describe).orElse(List.of()));
        List<Map<String, Object>> sourceJson = new ArrayList<>();
        for (Namespace namespace : sources.namespaces()) {
            Map<String, Object> source = new LinkedHashMap<>();
            source.put("namespace", namespace.toString());
            source.put("stalenessSeconds", sources.staleness(namespace));
            sourceJson.add(source);
        }
        json.put("sources", sourceJson);
        return Response.json(200, json);
    }

    /** The tasks this instance runs, active and standby, with their input partitions. */
    private List<Map<String, Object>> tasks() {
        List<Map<String, Object>> tasks = new ArrayList<>();
        for (ThreadMetadata thread : streams.metadataForLocalThreads()) {
            thread.activeTasks().forEach(task -> tasks.add(task(task, "active")));
            thread.standbyTasks().forEach(task -> tasks.add(task(task, "standby")));
        }
        tasks.sort((a, b) -> String.valueOf(a.get("id")).compareTo(String.valueOf(b.get("id"))));
        return tasks;
    }

    private static Map<String, Object> task(TaskMetadata task, String kind) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("id", task.taskId().toString());
        json.put("kind", kind);
        json.put(
                "partitions",
                task.topicPartitions().stream()
                        .map(TopicPartition::toString)
                        .sorted()
                        .toList());
        return json;
    }

    private static byte[] readPage() {
        try (InputStream in = StatusEndpoint.class.getResourceAsStream(PAGE)) {
            if (in == null) {
                throw new IllegalStateException(PAGE + " is missing from the build");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the bundled " + PAGE, e);
        }
    }
}
