package io.ttlstreams.platform;

import java.util.List;
import java.util.Objects;

/**
 * One Kafka user, for one role, with exactly the ACLs that role needs.
 *
 * @param user the user name ({@code User:<user>} as a principal)
 * @param role what the user runs as, in a few words
 * @param acls its ACLs, in a stable order
 */
public record KafkaPrincipal(String user, String role, List<Acl> acls) {

    public KafkaPrincipal {
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(role, "role");
        acls = List.copyOf(acls);
    }

    /** The principal as Kafka names it. */
    public String principal() {
        return "User:" + user;
    }
}
