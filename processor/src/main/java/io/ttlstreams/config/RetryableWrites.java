package io.ttlstreams.config;

import com.mongodb.ConnectionString;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigException;

/**
 * {@code retryWrites=false} where the service refuses retryable writes ({@link SourceProfile#refusesRetryableWrites()}):
 * Firestore with MongoDB compatibility, and Amazon DocumentDB before engine 8.0.2, fail every write of a driver that
 * asks to retry it, and the driver asks by default, so on those services a sink without it never deletes anything.
 * Their documentation says to put {@code retryWrites=false} in the connection string (docs/compatible-services.md).
 *
 * <p>The connectors' {@code connection.uri} is usually a config-provider reference to a secret on the Connect
 * workers, which ttl-streams cannot read or change: a literal URI is rendered with the option, and the processor's
 * own {@value ResyncOptions#MONGODB_URI_CONFIG}, which usually comes from the same secret, must carry it, so that a
 * secret without it is found at start-up rather than as a sink that never deletes.
 */
public final class RetryableWrites {

    private static final String OPTION = "retryWrites";

    private RetryableWrites() {}

    /**
     * Refuses {@code mongodbUri}, the processor's own, when the profile's service refuses retryable writes and the URI
     * does not turn them off.
     *
     * @throws ConfigException naming {@value ResyncOptions#MONGODB_URI_CONFIG}, the profile and what to add
     */
    static void check(SourceProfile profile, Optional<String> mongodbUri) {
        if (!profile.refusesRetryableWrites() || mongodbUri.isEmpty()) {
            return;
        }
        if (!Boolean.FALSE.equals(new ConnectionString(mongodbUri.get()).getRetryWritesValue())) {
            throw new ConfigException(ResyncOptions.MONGODB_URI_CONFIG + " must carry retryWrites=false: "
                    + profile.service() + " refuses retryable writes, which MongoDB drivers ask for by default ("
                    + SourceOptions.SOURCE_PROFILE_CONFIG + "=" + profile.configValue() + "). Add it to this URI and"
                    + " to the connectors' connection.uri (usually the same secret), or every sink write fails");
        }
    }

    /**
     * The {@code connection.uri} to render: a literal URI with {@code retryWrites=false} added where the profile's
     * service requires it; a config-provider reference ({@code ${...}}) as it is, since its secret must carry it.
     *
     * @throws IllegalArgumentException when a literal URI turns retryable writes on for a service that refuses them
     */
    public static String connectionUri(SourceProfile profile, String uri) {
        if (!profile.refusesRetryableWrites() || uri.startsWith("${")) {
            return uri;
        }
        Boolean retryWrites = new ConnectionString(uri).getRetryWritesValue();
        if (Boolean.TRUE.equals(retryWrites)) {
            throw new IllegalArgumentException("The MongoDB connection URI sets retryWrites=true, but "
                    + profile.service() + " refuses retryable writes (" + SourceOptions.SOURCE_PROFILE_CONFIG + "="
                    + profile.configValue() + "): set retryWrites=false");
        }
        if (retryWrites != null) {
            return uri;
        }
        int hosts = uri.indexOf("://") + 3;
        int path = uri.indexOf('/', hosts);
        if (path < 0) {
            return uri + "/?" + OPTION + "=false";
        }
        return uri + (uri.indexOf('?', path) < 0 ? "?" : "&") + OPTION + "=false";
    }
}
