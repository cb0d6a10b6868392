/**
 * The processor's HTTP transport ({@link io.ttlstreams.http.OperationsServer}): binding the port that is Kafka
 * Streams' {@code application.server}, the optional bearer token ({@link io.ttlstreams.http.HttpAuth}), and the
 * request, response and JSON writing that every endpoint shares. It knows no endpoint's meaning: the capabilities
 * (health, metrics, queries, status) register their {@link io.ttlstreams.http.Handler}s on it, and nothing here
 * imports them.
 *
 * <p>The server is Jetty 12's core ({@code org.eclipse.jetty.server}: {@code Handler}s, no servlets). It brings what
 * the JDK's {@code com.sun.net.httpserver} lacked and this package once built by hand: reads that hold no thread
 * while a client is slow, an idle timeout per connection, a limit on the request head, on the body, on open
 * connections and on concurrent queries ({@code QoSHandler}), and routing by path ({@code PathMappingsHandler}).
 * Javalin 7 was the other candidate: it runs on the same Jetty through its servlet layer and brings Kotlin's standard
 * library, for routing and JSON this package needs in a few lines; Jetty alone is the smaller dependency and the one
 * whose limits are configured directly. Kafka Connect, which module embedded runs in the same JVM, is built on Jetty
 * too; the build holds every Jetty module at one version (the parent POM's BOMs).
 */
package io.ttlstreams.http;
