package io.ttlstreams.query;

import io.ttlstreams.http.OperationsServer;
import java.time.Clock;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.state.HostInfo;

/**
 * The schedule queries, registered together: one document's deadline or why it has none ({@link DocumentEndpoint}),
 * answered by whichever instance owns the document, and upcoming expiries per time bucket, merged over every
 * instance ({@link ScheduleHistogram}).
 */
public final class ScheduleEndpoints {

    private final DocumentEndpoint documents;
    private final ScheduleHistogram histogram;

    public ScheduleEndpoints(KafkaStreams streams, LocalSchedule local, HostInfo self, PeerClient peers, Clock clock) {
        this.documents = new DocumentEndpoint(local, self, peers, clock);
        this.histogram = new ScheduleHistogram(streams, local, self, peers, clock);
    }

    /** Serves the document lookup and the histogram on {@code server}, as queries. */
    public void register(OperationsServer server) {
        server.serve(DocumentEndpoint.PREFIX + "*", documents::document);
        server.serve(ScheduleHistogram.PATH, histogram::schedule);
    }
}
