package io.ttlstreams.embedded;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.Properties;
import kafka.server.BrokerServer;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One KRaft node of the embedded cluster (broker, controller, or both), with the configuration it was formatted with,
 * so that it can be stopped and started again on the same log and ports.
 */
final class KafkaNode {

    private static final Logger log = LoggerFactory.getLogger(KafkaNode.class);

    private final int id;
    private final Properties props;
    private final int clientPort;
    private KafkaRaftServer server;

    /** A node, {@code clientPort} its clients' port (0 for a controller-only node). */
    KafkaNode(int id, Properties props, int clientPort) {
        this.id = id;
        this.props = props;
        this.clientPort = clientPort;
    }

    int clientPort() {
        return clientPort;
    }

    int id() {
        return id;
    }

    Properties props() {
        return props;
    }

    synchronized boolean running() {
        return server != null;
    }

    /** Starts the node on its log; returns once it registered (a broker) or joined the quorum (a controller). */
    synchronized void start() {
        if (server != null) {
            throw new IllegalStateException("Kafka node " + id + " runs already");
        }
        KafkaRaftServer started = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
        server = started;
        started.startup();
    }

    /** Shuts the node down as an operator's restart does: a broker hands its leaderships over first. */
    synchronized void stop() {
        if (server == null) {
            return;
        }
        KafkaRaftServer stopping = server;
        server = null;
        stopping.shutdown();
        stopping.awaitShutdown();
    }

    /**
     * Stops the node as a crash would, as far as one JVM allows: a broker stops heartbeating first and asks for no
     * controlled shutdown, so that the controller learns of its loss only when its session expires ({@code
     * broker.session.timeout.ms}) and its leaderships move only then, its clients finding it gone mid-request. Its log
     * is still closed cleanly (no recovery on restart), unlike after {@code kill -9}.
     */
    synchronized void crash() {
        if (server == null) {
            return;
        }
        brokerServer(server).ifPresent(broker -> {
            try {
                broker.lifecycleManager().close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            broker.shutdown(Duration.ZERO);
        });
        stop();
    }

    /**
     * The broker inside a KRaft server, which it keeps private: only it can be told not to wait for a controlled
     * shutdown.
     */
    private static Optional<BrokerServer> brokerServer(KafkaRaftServer server) {
        try {
            Method broker = KafkaRaftServer.class.getDeclaredMethod("broker");
            broker.setAccessible(true);
            Object option = broker.invoke(server); // a scala.Option
            boolean empty = (Boolean) option.getClass().getMethod("isEmpty").invoke(option);
            return empty
                    ? Optional.empty()
                    : Optional.of(
                            (BrokerServer) option.getClass().getMethod("get").invoke(option));
        } catch (ReflectiveOperationException | RuntimeException e) {
            log.warn(
                    "Cannot reach the broker of Kafka node {} to stop it hard; stopping it cleanly instead", server, e);
            return Optional.empty();
        }
    }
}
