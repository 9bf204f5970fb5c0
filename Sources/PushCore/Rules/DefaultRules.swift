extension RulesTable {
    /// The built-in table: every IMKIT seed type, plus `unreadCount` (silent) and `call` (VoIP), with fallback
    /// bodies in Korean, Japanese and Traditional Chinese (the seeds' own wording) and English.
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
          "defaultLocale": "en",
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
            "text": {
              "body": {
                "ko": "{sender.nickname}: {content}",
                "ja": "{sender.nickname}: {content}",
                "zh-Hant": "{sender.nickname}: {content}",
                "en": "{sender.nickname}: {content}"
              },
              "category": "message"
            },
            "image": {
              "body": {
                "ko": "{sender.nickname}님이 사진을 보냈습니다",
                "ja": "{sender.nickname} が画像を送信しました",
                "zh-Hant": "{sender.nickname} 傳送了一張圖片",
                "en": "{sender.nickname} sent a photo"
              },
              "category": "message", "mutableContent": true
            },
            "video": {
              "body": {
                "ko": "{sender.nickname}님이 동영상을 보냈습니다",
                "ja": "{sender.nickname} が動画を送信しました",
                "zh-Hant": "{sender.nickname} 傳送了一段影片",
                "en": "{sender.nickname} sent a video"
              },
              "category": "message", "mutableContent": true
            },
            "audio": {
              "body": {
                "ko": "{sender.nickname}님이 음성을 보냈습니다",
                "ja": "{sender.nickname} が音声を送信しました",
                "zh-Hant": "{sender.nickname} 傳送了一段語音",
                "en": "{sender.nickname} sent a voice message"
              },
              "category": "message", "mutableContent": true
            },
            "sticker": {
              "body": {
                "ko": "{sender.nickname}님이 스티커를 보냈습니다",
                "ja": "{sender.nickname} がスタンプを送信しました",
                "zh-Hant": "{sender.nickname} 傳送了一張貼圖",
                "en": "{sender.nickname} sent a sticker"
              },
              "category": "message", "mutableContent": true
            },
            "location": {
              "body": {
                "ko": "{sender.nickname}님이 위치를 공유했습니다",
                "ja": "{sender.nickname} が位置情報を共有しました",
                "zh-Hant": "{sender.nickname} 分享了位置",
                "en": "{sender.nickname} shared a location"
              },
              "category": "message"
            },
            "file": {
              "body": {
                "ko": "{sender.nickname}님이 파일을 보냈습니다",
                "ja": "{sender.nickname} がファイルを送信しました",
                "zh-Hant": "{sender.nickname} 傳送了一個檔案",
                "en": "{sender.nickname} sent a file"
              },
              "category": "message"
            },
            "joinRoom": {
              "locArgs": ["{sender.nickname}"],
              "body": {
                "ko": "{sender.nickname}님이 채팅방에 입장했습니다",
                "ja": "{sender.nickname} がチャットルームに参加しました",
                "zh-Hant": "{sender.nickname} 加入了聊天室",
                "en": "{sender.nickname} joined the room"
              }
            },
            "leaveRoom": {
              "locArgs": ["{sender.nickname}"],
              "body": {
                "ko": "{sender.nickname}님이 채팅방을 떠났습니다",
                "ja": "{sender.nickname} がチャットルームを退出しました",
                "zh-Hant": "{sender.nickname} 離開了聊天室",
                "en": "{sender.nickname} left the room"
              }
            },
            "addMember": {
              "locArgs": ["{sender.nickname}", "{target.nickname}"],
              "body": {
                "ko": "{sender.nickname}님이 {target.nickname}님을 초대했습니다",
                "ja": "{sender.nickname} が {target.nickname} を招待しました",
                "zh-Hant": "{sender.nickname} 邀請了 {target.nickname}",
                "en": "{sender.nickname} invited {target.nickname}"
              }
            },
            "addMembers": {
              "locArgs": ["{sender.nickname}"],
              "body": {
                "ko": "{sender.nickname}님이 여러 명을 초대했습니다",
                "ja": "{sender.nickname} が複数のメンバーを招待しました",
                "zh-Hant": "{sender.nickname} 邀請了多人",
                "en": "{sender.nickname} invited several people"
              }
            },
            "deleteMember": {
              "locArgs": ["{sender.nickname}", "{target.nickname}"],
              "body": {
                "ko": "{sender.nickname}님이 {target.nickname}님을 채팅방에서 내보냈습니다",
                "ja": "{sender.nickname} が {target.nickname} をチャットルームから削除しました",
                "zh-Hant": "{sender.nickname} 將 {target.nickname} 移出聊天室",
                "en": "{sender.nickname} removed {target.nickname} from the room"
              }
            },
            "deleteMembers": {
              "locKey": "im_loc_deleteMember",
              "locArgs": ["{sender.nickname}", "{target.nickname}"],
              "body": {
                "ko": "{sender.nickname}님이 {target.nickname}님을 채팅방에서 내보냈습니다",
                "ja": "{sender.nickname} が {target.nickname} をチャットルームから削除しました",
                "zh-Hant": "{sender.nickname} 將 {target.nickname} 移出聊天室",
                "en": "{sender.nickname} removed {target.nickname} from the room"
              }
            },
            "recall": {"kind": "skip"},
            "cancelInvitations": {"kind": "skip"},
            "encrypted": {
              "locArgs": ["{sender.nickname}"],
              "body": {
                "ko": "암호화된 메시지를 받았습니다",
                "ja": "暗号化されたメッセージを受信しました",
                "zh-Hant": "您收到一則加密訊息",
                "en": "You received an encrypted message"
              },
              "hideContent": true
            },
            "unreadCount": {"kind": "silent", "priority": "normal", "ttlSeconds": 3600, "forwardPayload": false},
            "call": {"kind": "voip", "ttlSeconds": 60, "collapseKey": null}
          },
          "unknownType": {
            "policy": "fallback",
            "rule": {
              "locArgs": ["{sender.nickname}"],
              "body": {
                "ko": "{sender.nickname}님이 메시지를 보냈습니다",
                "ja": "{sender.nickname} がメッセージを送信しました",
                "zh-Hant": "{sender.nickname} 傳送了一則訊息",
                "en": "{sender.nickname} sent a message"
              },
              "hideContent": true
            }
          }
        }
        """
}
