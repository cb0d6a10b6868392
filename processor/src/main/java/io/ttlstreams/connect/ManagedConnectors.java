package io.ttlstreams.connect;

import java.util.List;
import java.util.Objects;

/**
 * The connectors a processor depends on and watches: without them running, documents stop being scheduled (source)
 * or deleted (sink), and the processor is not ready.
 *
 * @param connectUrl the REST URL of the Kafka Connect cluster that runs them
 * @param names the connectors' names
 */
public record ManagedConnectors(String connectUrl, List<String> names) {

    public ManagedConnectors {
        Objects.requireNonNull(connectUrl, "connectUrl");
        names = List.copyOf(names);
    }

    /** The connectors {@link ConnectorConfigs} renders, at {@code connectUrl}. */
    public static ManagedConnectors of(String connectUrl, ConnectorConfigs connectors) {
        return new ManagedConnectors(
                connectUrl,
                connectors.files().values().stream()
                        .map(ConnectorDefinition::name)
                        .toList());
    }
}
