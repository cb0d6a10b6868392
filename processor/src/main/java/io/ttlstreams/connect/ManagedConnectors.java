package io.ttlstreams.connect;

import java.util.List;
import java.util.Objects;

/**
 * The connectors a processor depends on and watches: without them running, documents stop being scheduled (source)
 * or deleted (sink), and the processor is not ready.
 *
 * @param connect the client of the Kafka Connect cluster that runs them, with its credentials
 * @param names the connectors' names
 */
public record ManagedConnectors(ConnectRestClient connect, List<String> names) {

    public ManagedConnectors {
        Objects.requireNonNull(connect, "connect");
        names = List.copyOf(names);
    }

    /** The connectors {@link ConnectorConfigs} renders, run by {@code connect}. */
    public static ManagedConnectors of(ConnectRestClient connect, ConnectorConfigs connectors) {
        return new ManagedConnectors(
                connect,
                connectors.files().values().stream()
                        .map(ConnectorDefinition::name)
                        .toList());
    }

    /** Connect's REST URL without user info: what messages may show. */
    public String connectUrl() {
        return connect.url();
    }
}
