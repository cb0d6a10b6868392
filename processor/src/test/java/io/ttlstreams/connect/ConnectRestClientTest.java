package io.ttlstreams.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.ttlstreams.secrets.BasicCredentials;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.config.types.Password;
import org.bson.BsonDocument;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.Timeout.ThreadMode;

/** The Connect REST client against a fake Connect (an HTTP server on loopback). */
@Timeout(value = 30, unit = TimeUnit.SECONDS, threadMode = ThreadMode.SEPARATE_THREAD)
class ConnectRestClientTest {

    private static final ConnectorDefinition SINK = new ConnectorDefinition(
            "mongo-ttl-sink",
            Map.of("connector.class", "com.mongodb.kafka.connect.MongoSinkConnector", "topics", "ttl.deletes"));
    private static final ConnectorDefinition SOURCE = new ConnectorDefinition(
            "mongo-source-app", Map.of("connection.uri", "mongodb://app:m0ngo-Secret@mongo:27017/?replicaSet=rs0"));

    private FakeConnect connect;

    @BeforeEach
    void startFakeConnect() throws IOException {
        connect = FakeConnect.start();
    }

    @AfterEach
    void stop() {
        connect.close();
    }

    @Test
    void shouldPutConfigIdempotentlyByName() throws Exception {
        new ConnectRestClient(connect.url()).put(SINK);

        assertThat(connect.requests()).hasSize(1);
        FakeConnect.Request request = connect.requests().get(0);
        assertThat(request.method()).isEqualTo("PUT");
        assertThat(request.path()).isEqualTo("/connectors/mongo-ttl-sink/config");
        assertThat(request.authorization()).isNull();
        assertThat(request.config())
                .isEqualTo(BsonDocument.parse("{\"connector.class\": \"com.mongodb.kafka.connect.MongoSinkConnector\","
                        + " \"topics\": \"ttl.deletes\"}"));
    }

    @Test
    void shouldSendASpaceInAConnectorsNameAsASpaceNotAPlusWhenNamingItInThePath() throws Exception {
        new ConnectRestClient(connect.url())
                .put(new ConnectorDefinition("mongo sink+1", Map.of("topics", "ttl.deletes")));
        new ConnectRestClient(connect.url()).status("mongo sink+1");

        assertThat(connect.requests())
                .extracting(FakeConnect.Request::path)
                .containsExactly("/connectors/mongo sink+1/config", "/connectors/mongo sink+1/status");
    }

    @Test
    void shouldAuthenticateWithTheUrlsDecodedUserInfo() throws Exception {
        connect.requireBasicAuth("admin", "p@ss:w0rd");
        ConnectRestClient client = new ConnectRestClient(connect.url("admin:p%40ss%3Aw0rd"));

        client.put(SINK);

        assertThat(connect.accepted()).hasSize(1);
        assertThat(client.url()).isEqualTo(connect.url() + "/").doesNotContain("admin");
    }

    @Test
    void shouldAuthenticateWithGivenCredentials() throws Exception {
        connect.requireBasicAuth("admin", "s3cret");

        new ConnectRestClient(connect.url(), Optional.of(new BasicCredentials("admin", new Password("s3cret"))))
                .put(SINK);

        assertThat(connect.accepted()).hasSize(1);
    }

    @Test
    void shouldRefuseCredentialsGivenTwice() {
        assertThatThrownBy(() -> new ConnectRestClient(
                        connect.url("admin:s3cret"), Optional.of(new BasicCredentials("admin", new Password("other")))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void shouldSayThatConnectWantsCredentialsWhenNoneWereGiven() {
        connect.requireBasicAuth("admin", "s3cret");

        assertThatThrownBy(() -> new ConnectRestClient(connect.url()).put(SINK))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("HTTP 401")
                .hasMessageContaining("requires credentials");
    }

    @Test
    void shouldSayThatConnectRefusedTheCredentialsWithoutShowingThem() {
        connect.requireBasicAuth("admin", "s3cret");

        assertThatThrownBy(() -> new ConnectRestClient(connect.url("admin:wr0ng-Guess")).put(SINK))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("HTTP 401")
                .hasMessageContaining("did not accept the credentials")
                .hasMessageContaining(connect.url())
                .hasMessageNotContaining("wr0ng-Guess")
                .hasMessageNotContaining("admin");
    }

    @Test
    void shouldQuoteConnectsRefusalRedacted() {
        connect.refuseConfigs();

        assertThatThrownBy(() -> new ConnectRestClient(connect.url() + "/").put(SOURCE))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("refused connector mongo-source-app: HTTP 400")
                .hasMessageContaining("Invalid value mongodb://***@mongo:27017/?replicaSet=rs0")
                .hasMessageNotContaining("m0ngo-Secret");
    }

    @Test
    void shouldNameConnectWhenItCannotBeReached() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }

        assertThatThrownBy(() -> new ConnectRestClient("http://admin:s3cret@127.0.0.1:" + closedPort).put(SINK))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("Cannot reach Kafka Connect at http://127.0.0.1:" + closedPort + "/")
                .hasMessageContaining("ConnectException")
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void shouldRefuseAMalformedUrlWithoutQuotingIt() {
        assertThatThrownBy(() -> new ConnectRestClient("http://admin:s3 cret@connect:8083"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageNotContaining("s3")
                .hasMessageNotContaining("cret");
    }

    @Test
    void shouldReadAConnectorsStatus() throws Exception {
        connect.answerStatus("mongo-source-app", 200, ConnectorStatusTest.FAILED_TASK);

        assertThat(new ConnectRestClient(connect.url()).status("mongo-source-app"))
                .hasValueSatisfying(found -> assertThat(found.failures()).isEqualTo(1));
        assertThat(connect.requests())
                .extracting(FakeConnect.Request::method, FakeConnect.Request::path)
                .containsExactly(tuple("GET", "/connectors/mongo-source-app/status"));
    }

    @Test
    void shouldTellAMissingConnectorFromAnError() throws Exception {
        assertThat(new ConnectRestClient(connect.url()).status("x")).isEmpty();

        connect.answerStatus("x", 500, "{\"error_code\": 500, \"message\": \"mongodb://app:m0ngo-Secret@mongo\"}");
        assertThatThrownBy(() -> new ConnectRestClient(connect.url()).status("x"))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("HTTP 500")
                .hasMessageNotContaining("m0ngo-Secret");
    }

    @Test
    void shouldAuthenticateStatusReads() throws Exception {
        connect.requireBasicAuth("admin", "s3cret");
        connect.answerStatus("mongo-source-app", 200, ConnectorStatusTest.FAILED_TASK);

        assertThat(new ConnectRestClient(connect.url("admin:s3cret")).status("mongo-source-app"))
                .isPresent();
    }
}
