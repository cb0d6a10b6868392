package io.ttlstreams.status;

import io.micrometer.core.instrument.MeterRegistry;
import io.ttlstreams.health.ConnectorMonitor;
import io.ttlstreams.health.Dependencies;
import io.ttlstreams.health.Health;
import io.ttlstreams.http.OperationsServer;
import io.ttlstreams.http.Response;
import io.ttlstreams.metrics.ExpiryFigures;
import io.ttlstreams.metrics.ScheduleMetrics;
import io.ttlstreams.processor.TtlMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalDouble;
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
    private final MeterRegistry metrics;
    private final Dependencies dependencies;
    private final byte[] page;

    public StatusEndpoint(
            KafkaStreams streams,
            HostInfo self,
            Health health,
            ScheduleMetrics schedule,
            MeterRegistry metrics,
            Dependencies dependencies) {
        this.streams = streams;
        this.self = self;
        this.health = health;
        this.schedule = schedule;
        this.metrics = metrics;
        this.dependencies = dependencies;
        this.page = readPage();
    }

    /** Serves the status page at {@code /} and {@code /index.html}, and the status report as a query. */
    public void register(OperationsServer server) {
        server.serve("/", request -> page());
        server.serve("/index.html", request -> page());
        server.serve(STATUS_PATH, request -> status());
    }

    Response page() {
        return new Response(200, "text/html; charset=utf-8", page);
    }

    Response status() {
        Health.Report ready = health.ready();
        Health.Report degraded = health.dependencies();
        ExpiryFigures expiries = ExpiryFigures.of(metrics);
        return Response.json(
                200,
                new Status(
                        OperationsServer.hostPort(self),
                        ready.state().toString(),
                        ready.up(),
                        ready.reasons(),
                        !degraded.up(),
                        degraded.reasons(),
                        tasks(),
                        schedule.snapshot(),
                        expiries.total(TtlMetrics.EMITTED),
                        expiries.total(TtlMetrics.CONFIRMED),
                        expiries.total(TtlMetrics.UNCONFIRMED),
                        expiries.total(TtlMetrics.DEAD_LETTERED),
                        expiries.sinkDeadLetters(),
                        expiries.lagSummary(),
                        expiries.perRule(),
                        dependencies.connectors(),
                        dependencies.sources().namespaces().stream()
                                .map(namespace -> new Source(
                                        namespace.toString(),
                                        dependencies.sources().staleness(namespace)))
                                .toList()));
    }

    /** The tasks this instance runs, active and standby, with their input partitions. */
    private List<Task> tasks() {
        List<Task> tasks = new ArrayList<>();
        for (ThreadMetadata thread : streams.metadataForLocalThreads()) {
            thread.activeTasks().forEach(task -> tasks.add(task(task, "active")));
            thread.standbyTasks().forEach(task -> tasks.add(task(task, "standby")));
        }
        tasks.sort(Comparator.comparing(Task::id));
        return tasks;
    }

    private static Task task(TaskMetadata task, String kind) {
        return new Task(
                task.taskId().toString(),
                kind,
                task.topicPartitions().stream()
                        .map(TopicPartition::toString)
                        .sorted()
                        .toList());
    }

    /**
     * The body of {@code GET /v1/status}; the status page reads it. {@code reasons} say why this instance is not
     * ready, {@code dependencies} why a shared dependency fails ({@code degraded}), which leaves it ready.
     */
    record Status(
            String instance,
            String state,
            boolean ready,
            List<String> reasons,
            boolean degraded,
            List<String> dependencies,
            List<Task> tasks,
            ScheduleMetrics.Snapshot schedule,
            double deletesEmitted,
            double deletesConfirmed,
            double deletesUnconfirmed,
            double deadLettered,
            ExpiryFigures.SinkDeadLetters sinkDeadLetters,
            ExpiryFigures.LagSummary expiryLag,
            List<ExpiryFigures.RuleFigures> rules,
            List<ConnectorMonitor.Described> connectors,
            List<Source> sources) {}

    /** A task this instance runs: {@code active} or {@code standby}, with its input partitions. */
    record Task(String id, String kind, List<String> partitions) {}

    /** How long ago a namespace's source was last heard from; null before it was. */
    record Source(String namespace, OptionalDouble stalenessSeconds) {}

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
