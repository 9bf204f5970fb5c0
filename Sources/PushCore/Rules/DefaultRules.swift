extension RulesTable {
    /// The built-in table: every IMKIT seed type, plus `unreadCount` (silent) and `call` (VoIP).
    public static let standard: RulesTable = {
        do {
            return try load(json: Array(standardJSON.utf8))
        } catch {
            preconditionFailure("the built-in rules table is invalid: \(error)")
        }
    }()

    /// The built-in table as a rules file: the starting point for a custom `PUSH_RULES_FILE`.
    public static let standardJSON = """
        {
          "anonymousName": "Someone",
          "defaults": {
            "kind": "alert",
            "locKey": "im_loc_{type}",
            "locArgs": ["{sender.nickname}", "{content}"],
            "title": "{room.name}",
            "sound": "default",
            "clickAction": "push_chatroom",
            "icon": "ic_stat_chat",
            "collapseKey": "{room.id}",
            "threadId": "{room.id}",
            "priority": "high",
            "ttlSeconds": 86400
          },
          "types": {
            "text": {"body": "{sender.nickname}: {content}", "category": "message"},
            "image": {"body": "{sender.nickname} sent a photo", "category": "message", "mutableContent": true},
            "video": {"body": "{sender.nickname} sent a video", "category": "message", "mutableContent": true},
            "audio": {"body": "{sender.nickname} sent a voice message", "category": "message", "mutableContent": true},
            "sticker": {"body": "{sender.nickname} sent a sticker", "category": "message", "mutableContent": true},
            "location": {"body": "{sender.nickname} shared a location", "category": "message"},
            "file": {"body": "{sender.nickname} sent a file", "category": "message"},
            "joinRoom": {"locArgs": ["{sender.nickname}"], "body": "{sender.nickname} joined the room"},
            "leaveRoom": {"locArgs": ["{sender.nickname}"], "body": "{sender.nickname} left the room"},
            "addMember": {"locArgs": ["{sender.nickname}", "{target.nickname}"], "body": "{sender.nickname} invited {target.nickname}"},
            "addMembers": {"locArgs": ["{sender.nickname}"], "body": "{sender.nickname} invited several people"},
            "deleteMember": {"locArgs": ["{sender.nickname}", "{target.nickname}"], "body": "{sender.nickname} removed {target.nickname} from the room"},
            "encrypted": {"locArgs": ["{sender.nickname}"], "body": "You received an encrypted message", "hideContent": true},
            "unreadCount": {"kind": "silent", "priority": "normal", "ttlSeconds": 3600, "forwardPayload": false},
            "call": {"kind": "voip", "ttlSeconds": 60, "collapseKey": null}
          },
          "unknownType": {
            "policy": "fallback",
            "rule": {"locArgs": ["{sender.nickname}"], "body": "{sender.nickname} sent a message", "hideContent": true}
          }
        }
        """
}
