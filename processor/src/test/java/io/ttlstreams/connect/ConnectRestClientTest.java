package io.ttlstreams.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ConnectRestClientTest {

    private HttpServer server;
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private volatile int status = 201;
    private volatile String answer = "{\"error_code\": 400, \"message\": \"bad config\"}";

    @BeforeEach
    void startFakeConnect() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            requests.add(
                    exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath() + " "
                            + new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            byte[] body = answer.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(status, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Test
    void shouldPutConfigIdempotentlyByName() throws Exception {
        new ConnectRestClient(url())
                .put(new ConnectorDefinition(
                        "mongo-ttl-sink",
                        Map.of(
                                "connector.class",
                                "com.mongodb.kafka.connect.MongoSinkConnector",
                                "topics",
                                "ttl.deletes")));

        assertThat(requests).hasSize(1);
        String[] request = requests.get(0).split(" ", 3);
        assertThat(request[0]).isEqualTo("PUT");
        assertThat(request[1]).isEqualTo("/connectors/mongo-ttl-sink/config");
        assertThat(BsonDocument.parse(request[2]))
                .isEqualTo(
                        BsonDocument.parse(
                                "{\"connector.class\": \"com.mongodb.kafka.connect.MongoSinkConnector\", \"topics\": \"ttl.deletes\"}"));
    }

    @Test
    void shouldFailWithConnectsAnswerWhenRefused() {
        status = 400;
        assertThatThrownBy(() -> new ConnectRestClient(url() + "/").put(new ConnectorDefinition("s", Map.of("a", "b"))))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("HTTP 400")
                .hasMessageContaining("bad config");
    }

    @Test
    void shouldReadAConnectorsStatus() throws Exception {
        status = 200;
        answer = ConnectorStatusTest.FAILED_TASK;

        assertThat(new ConnectRestClient(url()).status("mongo-source-app"))
                .hasValueSatisfying(found -> assertThat(found.failures()).isEqualTo(1));
        assertThat(requests).containsExactly("GET /connectors/mongo-source-app/status ");
    }

    @Test
    void shouldTellAMissingConnectorFromAnError() throws Exception {
        status = 404;
        answer = "{\"error_code\": 404, \"message\": \"No status found for connector x\"}";
        assertThat(new ConnectRestClient(url()).status("x")).isEmpty();

        status = 500;
        assertThatThrownBy(() -> new ConnectRestClient(url()).status("x"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("HTTP 500");
    }
}
