package io.ttlstreams.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.apache.kafka.streams.CloseOptions.GroupMembershipOperation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A closing instance leaves its group unless it is a static member, which a rolling restart brings back. */
class MembershipOnCloseTest {

    @Test
    void shouldLeaveTheGroupWhenNoGroupInstanceIdIsSet() {
        assertThat(TtlStreamsApp.membershipOnClose(new Properties())).isEqualTo(GroupMembershipOperation.LEAVE_GROUP);
    }

    @ParameterizedTest
    @ValueSource(strings = {"group.instance.id", "consumer.group.instance.id", "main.consumer.group.instance.id"})
    void shouldStayInTheGroupWhenAGroupInstanceIdIsSet(String key) {
        Properties props = new Properties();
        props.setProperty(key, "ttl-streams-0");

        assertThat(TtlStreamsApp.membershipOnClose(props)).isEqualTo(GroupMembershipOperation.REMAIN_IN_GROUP);
    }

    @Test
    void shouldLeaveTheGroupWhenTheGroupInstanceIdIsBlank() {
        Properties props = new Properties();
        props.setProperty("group.instance.id", " ");

        assertThat(TtlStreamsApp.membershipOnClose(props)).isEqualTo(GroupMembershipOperation.LEAVE_GROUP);
    }
}
