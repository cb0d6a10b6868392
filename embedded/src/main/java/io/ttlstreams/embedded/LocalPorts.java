package io.ttlstreams.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** Loopback port helpers shared by the embedded components. */
final class LocalPorts {

    /** Everything in the embedded stack listens here only, never on a routable interface. */
    static final String HOST = "127.0.0.1";

    private LocalPorts() {}

    /**
     * Returns {@code port} unchanged, or a currently free loopback port when it is 0.
     *
     * <p>Kafka's controller port and Connect's REST port must be known before the component binds (they are
     * written into its own configuration), so "0" cannot be passed through. Another process may grab the port
     * between this probe and the real bind; the component then fails to start with a bind error, which is rare
     * and loud rather than silent.
     */
    static int resolve(int port) {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be between 0 and 65535, got " + port);
        }
        return port != 0 ? port : pickFree();
    }

    static int pickFree() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress(InetAddress.getByName(HOST), 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("could not find a free port on " + HOST, e);
        }
    }
}
