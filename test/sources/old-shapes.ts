/**
 * Data as release 271b638 (before 60s's shapes, issue 13) stored it: the output of that release's
 * parsers on the fixtures of test/fixtures/upstream, at 2026-11-21 10:00 (Asia/Shanghai), with
 * long lists cut to their first items. `IP_SB_GEO` is that release's
 * `parseIpSb` of api.ip.sb/geoip/114.114.114.114.json; its `ip` answer spread it beside the address.
 */

export const EXCHANGE_RATE = {
  "base_code": "CNY",
  "date": "2026-11-21",
  "rates": [
    { "currency": "CNY", "rate": 1 },
    { "currency": "AED", "rate": 0.516919 },
    { "currency": "ARS", "rate": 199.237114 },
    { "currency": "AUD", "rate": 0.216634 },
    { "currency": "BRL", "rate": 0.747755 },
    { "currency": "CAD", "rate": 0.197224 },
    { "currency": "CHF", "rate": 0.112153 },
    { "currency": "CZK", "rate": 2.933311 },
    { "currency": "DKK", "rate": 0.906497 },
    { "currency": "EGP", "rate": 6.664696 },
    { "currency": "EUR", "rate": 0.121499 },
    { "currency": "GBP", "rate": 0.107212 },
    { "currency": "HKD", "rate": 1.095544 },
    { "currency": "HUF", "rate": 46.617684 },
    { "currency": "IDR", "rate": 2352.335107 },
    { "currency": "ILS", "rate": 0.458731 },
    { "currency": "INR", "rate": 12.472483 },
    { "currency": "ISK", "rate": 17.936267 },
    { "currency": "JPY", "rate": 21.987163 },
    { "currency": "KRW", "rate": 206.753371 },
    { "currency": "KZT", "rate": 73.712806 },
    { "currency": "MOP", "rate": 1.12841 },
    { "currency": "MXN", "rate": 2.590153 },
    { "currency": "MYR", "rate": 0.585438 },
    { "currency": "NOK", "rate": 1.428933 },
    { "currency": "NZD", "rate": 0.249613 },
    { "currency": "PHP", "rate": 8.291811 },
    { "currency": "PKR", "rate": 39.608141 },
    { "currency": "PLN", "rate": 0.515891 },
    { "currency": "RUB", "rate": 11.394026 },
    { "currency": "SAR", "rate": 0.527827 },
    { "currency": "SEK", "rate": 1.339104 },
    { "currency": "SGD", "rate": 0.183782 },
    { "currency": "THB", "rate": 4.561833 },
    { "currency": "TRY", "rate": 5.955719 },
    { "currency": "TWD", "rate": 4.392084 },
    { "currency": "UAH", "rate": 5.921516 },
    { "currency": "USD", "rate": 0.140754 },
    { "currency": "VND", "rate": 3708.231287 },
    { "currency": "ZAR", "rate": 2.43659 }
  ],
  "total": 40,
  "rates_updated": "2026-11-21 08:02:31",
  "rates_updated_at": 1795219351000,
  "next_update": "2026-11-22 08:11:05",
  "next_update_at": 1795306265000,
  "provider": "https://www.exchangerate-api.com",
  "updated": "2026-11-21 10:00:00",
  "updated_at": 1795226400000
};

export const TODAY_IN_HISTORY = {
  "list": [
    {
      "rank": 1,
      "title": "示例：秦始皇统一六国前后的记载",
      "link": "https://baike.baidu.com/item/%E7%A7%A6%E5%A7%8B%E7%9A%87",
      "year": "-221",
      "description": "用于检验公元前年份排序的示例条目。",
      "event_type": "event"
    },
    {
      "rank": 2,
      "title": "法国启蒙思想家伏尔泰出生",
      "link": "https://baike.baidu.com/item/%E4%BC%8F%E5%B0%94%E6%B3%B0",
      "year": "1694",
      "description": "伏尔泰（Voltaire，1694年11月21日－1778年5月30日），原名弗朗索瓦-马利·阿鲁埃，法国启蒙时代思想家、文学家、哲学家。",
      "event_type": "birth",
      "cover": "https://bkimg.cdn.bcebos.com/pic/voltaire-example.jpg"
    }
  ],
  "total": 2,
  "updated": "2026-11-21 10:00:00",
  "updated_at": 1795226400000,
  "date": "2026-11-21",
  "month": 11,
  "day": 21
};

export const GOLD_PRICE = {
  "date": "2026-11-21",
  "metals": [
    {
      "name": "今日金价",
      "sell_price": 968.5,
      "today_price": 962.3,
      "high_price": 971.2,
      "low_price": 960.1,
      "unit": "元/克"
    },
    {
      "name": "黄金9999",
      "sell_price": 966.8,
      "today_price": 961,
      "high_price": 970.5,
      "low_price": 959.4,
      "unit": "元/克"
    },
    {
      "name": "黄金T+D",
      "sell_price": 965.2,
      "today_price": 960.4,
      "high_price": 969.8,
      "low_price": 958.7,
      "unit": "元/克"
    }
  ],
  "stores": [
    {
      "brand": "周大福",
      "product": "黄金",
      "price": 1388,
      "unit": "元/克",
      "quoted": "2026-11-21",
      "quoted_at": 1795190400000
    }
  ],
  "banks": [
    {
      "bank": "工商银行",
      "product": "如意金条",
      "price": 982.6,
      "unit": "元/克",
      "quoted": "09:45:02",
      "quoted_at": 1795225502000
    }
  ],
  "recycle": [
    {
      "type": "黄金回收",
      "purity": "99.99%",
      "price": 958,
      "unit": "元/克",
      "quoted": "2026-11-21",
      "quoted_at": 1795190400000
    }
  ],
  "updated": "2026-11-21 10:00:00",
  "updated_at": 1795226400000
};

export const FUEL_PRICE = {
  "region": "广东",
  "date": "2026-11-21",
  "items": [
    {
      "name": "92#汽油",
      "price": 7.88,
      "price_desc": "7.88 元/升"
    },
    {
      "name": "95#汽油",
      "price": 8.53,
      "price_desc": "8.53 元/升"
    },
    {
      "name": "98#汽油",
      "price": 10.18,
      "price_desc": "10.18 元/升"
    },
    {
      "name": "0#柴油",
      "price": 7.55,
      "price_desc": "7.55 元/升"
    }
  ],
  "trend": {
    "next_adjustment": "2026-12-06 00:00:00",
    "next_adjustment_at": 1796486400000,
    "direction": "下调",
    "change_ton": 85,
    "change_ton_desc": "下调85元/吨",
    "change_liter_min": 0.07,
    "change_liter_max": 0.08,
    "change_liter_desc": "0.07元/升-0.08元/升",
    "description": "下次油价12月5日24时调整，目前预计下调85元/吨（0.07元/升 - 0.08元/升）"
  },
  "link": "http://www.qiyoujiage.com/guangdong.shtml",
  "updated": "2026-11-21 10:00:00",
  "updated_at": 1795226400000
};

export const WALLPAPER = {
  "date": "2026-11-21",
  "title": "漓江上的晨雾",
  "headline": "漓江上的晨雾",
  "description": "桂林漓江沿岸的喀斯特峰林，中国广西",
  "main_text": "",
  "copyright": "© Example Photographer/Example Images",
  "cover": "https://www.bing.com/th?id=OHR.LiRiverMist_ZH-CN5190432817_1920x1080.jpg",
  "cover_4k": "https://www.bing.com/th?id=OHR.LiRiverMist_ZH-CN5190432817_UHD.jpg",
  "link": "https://www.bing.com/search?q=%e6%bc%93%e6%b1%9f&form=hpcapt&mkt=zh-cn",
  "source": "archive",
  "updated": "2026-11-21 10:00:00",
  "updated_at": 1795226400000
};

export const WEATHER_NOW = {
  "kind": "realtime",
  "location": {
    "name": "北京",
    "province": "北京",
    "city": "北京",
    "county": ""
  },
  "weather": {
    "condition": "晴",
    "condition_code": "00",
    "temperature": 5,
    "humidity": 31,
    "pressure": 1027,
    "precipitation": 0,
    "wind_direction": "北风",
    "wind_power": "3",
    "observed": "2026-11-21 09:40:00",
    "observed_at": 1795225200000
  },
  "air_quality": {
    "aqi": 46,
    "level": 1,
    "quality": "优",
    "pm25": 19,
    "pm10": 45,
    "co": 0.4,
    "no2": 21,
    "o3": 38,
    "so2": 3,
    "rank": 88,
    "total_cities": 374,
    "observed": "2026-11-21 10:00:00",
    "observed_at": 1795226400000
  },
  "sunrise": {
    "date": "2026-11-21",
    "sunrise": "07:04",
    "sunrise_at": 1795215840000,
    "sunset": "16:52",
    "sunset_at": 1795251120000
  },
  "life_indices": [
    {
      "key": "clothes",
      "name": "穿衣",
      "level": "冷",
      "description": "天气冷，建议着棉服、羽绒服、皮夹克加羊毛衫等冬季服装。"
    }
  ],
  "alerts": [
    {
      "type": "大风",
      "level": "蓝色",
      "level_code": "01",
      "province": "北京",
      "city": "北京",
      "county": "",
      "detail": "北京市气象台发布大风蓝色预警：预计21日白天至夜间有4级左右偏北风，阵风可达7级，请注意防范。",
      "published": "2026-11-21 06:30:00",
      "published_at": 1795213800000
    }
  ],
  "tips": [
    "天冷了，该加衣服了~",
    "风有点大，出门注意保暖~"
  ],
  "updated": "2026-11-21 10:00:00",
  "updated_at": 1795226400000
};

export const WEATHER_FORECAST = {
  "kind": "forecast",
  "location": {
    "name": "北京",
    "province": "北京",
    "city": "北京",
    "county": ""
  },
  "days": 2,
  "hourly_forecast": [
    {
      "time": "2026-11-21 10:00",
      "time_at": 1795226400000,
      "temperature": 1,
      "condition": "晴",
      "condition_code": "00",
      "wind_direction": "北风",
      "wind_power": "3-4"
    }
  ],
  "daily_forecast": [
    {
      "date": "2026-11-21",
      "weekday": "星期六",
      "day_condition": "晴",
      "day_condition_code": "00",
      "night_condition": "晴",
      "night_condition_code": "00",
      "max_temperature": 8,
      "min_temperature": -2,
      "day_wind_direction": "北风",
      "day_wind_power": "3-4",
      "night_wind_direction": "西北风",
      "night_wind_power": "<3",
      "aqi": 47,
      "air_quality": "优"
    },
    {
      "date": "2026-11-22",
      "weekday": "星期日",
      "day_condition": "晴",
      "day_condition_code": "00",
      "night_condition": "多云",
      "night_condition_code": "01",
      "max_temperature": 10,
      "min_temperature": 0,
      "day_wind_direction": "北风",
      "day_wind_power": "3-4",
      "night_wind_direction": "西北风",
      "night_wind_power": "<3",
      "aqi": 54,
      "air_quality": "优"
    }
  ],
  "sunrise_sunset": [
    {
      "date": "2026-11-21",
      "sunrise": "07:04",
      "sunrise_at": 1795215840000,
      "sunset": "16:52",
      "sunset_at": 1795251120000
    },
    {
      "date": "2026-11-22",
      "sunrise": "07:04",
      "sunrise_at": 1795302240000,
      "sunset": "16:52",
      "sunset_at": 1795337520000
    }
  ],
  "updated": "2026-11-21 10:00:00",
  "updated_at": 1795226400000
};

export const WHOIS = {
  "domain": "lanting-books.com",
  "unicode_domain": "lanting-books.com",
  "punycode_domain": "lanting-books.com",
  "query": "lanting-books.com",
  "status": [
    "client delete prohibited",
    "client transfer prohibited"
  ],
  "registrar": "Yunlan Registrar Co., Ltd.",
  "registrar_iana_id": "3721",
  "registrar_url": null,
  "registrant": {
    "name": null,
    "organization": "Lanting Books Ltd.",
    "email": "owner@lanting-books.com",
    "country": "CN"
  },
  "nameservers": [
    "ns1.yunlan-dns.net",
    "ns2.yunlan-dns.net"
  ],
  "dnssec": false,
  "created": "2016-04-09 15:31:12",
  "created_at": 1460187072000,
  "changed": "2026-03-18 10:05:44",
  "changed_at": 1773799544000,
  "expires": "2027-04-09 15:31:12",
  "expires_at": 1807255872000,
  "age_days": 3877,
  "age_desc": "10 年 227 天",
  "source": "rdap",
  "rdap_server": "https://rdap.verisign.com/com/v1/",
  "whois_server": null,
  "updated": "2026-11-21 10:00:00",
  "updated_at": 1795226400000
};

export const IP_SB_GEO = {
  "country": "China",
  "country_code": "CN",
  "region": "Jiangsu",
  "region_code": "JS",
  "city": "Nanjing",
  "postal_code": null,
  "latitude": 32.0617,
  "longitude": 118.7778,
  "timezone": "Asia/Shanghai",
  "isp": "NanJing XinFeng Information Technologies, Inc.",
  "organization": "NanJing XinFeng Information Technologies, Inc.",
  "asn": 21859,
  "asn_organization": "Zenlayer Inc",
  "continent_code": "AS"
};

export const OG = {
  "url": "https://github.com/",
  "fetched_url": "https://github.com/",
  "title": "GitHub · Build and ship software on a single, collaborative platform",
  "description": "Join the world's most widely adopted developer platform to build the technologies that shape what's next.",
  "image": "https://images.ctfassets.net/8aevphvgewt8/social-card/github-social-card.png",
  "image_alt": "Build and ship software on a single, collaborative platform",
  "site_name": "GitHub",
  "favicon": "https://github.githubassets.com/favicons/favicon.svg",
  "type": "object",
  "locale": null,
  "twitter_card": "summary_large_image",
  "twitter_site": "@github",
  "updated": "2026-11-21 10:00:00",
  "updated_at": 1795226400000
};

export const BAIKE = {
  "title": "长城",
  "description": "中国古代的军事防御工程",
  "abstract": "长城是中国古代为抵御北方游牧势力而修筑的大规模军事防御体系，由城墙、关隘、敌台和烽火台等组成，历经多个朝代修建和增补，现存遗存以明代所筑为主。1987年长城被列入《世界遗产名录》。",
  "cover": "https://bkimg.cdn.bcebos.com/pic/5d6034a85edf8db1cb13a8c60123d154ad345982",
  "link": "https://baike.baidu.com/subview/14251/3462716.htm",
  "has_other": true,
  "basic_info": [
    {
      "name": "中文名",
      "value": "长城"
    },
    {
      "name": "外文名",
      "value": "The Great Wall"
    },
    {
      "name": "地理位置",
      "value": "中国北方"
    },
    {
      "name": "总长度",
      "value": "21196.18千米"
    },
    {
      "name": "遗产级别",
      "value": "世界文化遗产、全国重点文物保护单位"
    }
  ],
  "lemma_id": 3462716,
  "updated": "2026-11-21 10:00:00",
  "updated_at": 1795226400000
};

export const FANYI = {
  "source": {
    "text": "你好",
    "type": "zh-CHS",
    "type_desc": "中文（简体）",
    "type_name": "Chinese (Simplified)"
  },
  "target": {
    "text": "Spring rain drums on the old courtyard; the plum blossoms are opening early this year.",
    "type": "en",
    "type_desc": "英语",
    "type_name": "English"
  },
  "provider": "gateway",
  "model": "gpt-4o-mini-2024-07-18",
  "updated": "2026-11-21 10:00:00",
  "updated_at": 1795226400000
};

export const CHANGYA_PIECES = [
  {
    "piece_id": "fixture000",
    "user": {
      "nickname": "唱歌的人1",
      "gender": "female",
      "avatar": "https://img-cdn.api.singduck.cn/user-img/1.jpg"
    },
    "song": {
      "name": "晚风",
      "singer": "测试歌手",
      "lyrics": [
        "第一句歌词 1",
        "第二句歌词 1",
        "第三句歌词 1"
      ]
    },
    "audio": {
      "url": "https://audio-cdn.api.singduck.cn/ugc/fixture000.m4a",
      "duration_sec": 31,
      "like_count": 101,
      "link": "https://m.singduck.cn/user-piece/cont_fixture000",
      "publish": "2023-03-31 18:46:36",
      "publish_at": 1680259596000
    }
  },
  {
    "piece_id": "fixture001",
    "user": {
      "nickname": "唱歌的人2",
      "gender": "male",
      "avatar": "https://img-cdn.api.singduck.cn/user-img/2.jpg"
    },
    "song": {
      "name": "海边的信",
      "singer": "测试乐队",
      "lyrics": [
        "第一句歌词 2",
        "第二句歌词 2",
        "第三句歌词 2"
      ]
    },
    "audio": {
      "url": "https://audio-cdn.api.singduck.cn/ugc/fixture001.m4a",
      "duration_sec": 32,
      "like_count": 102,
      "link": "https://m.singduck.cn/user-piece/cont_fixture001",
      "publish": "2023-03-31 18:46:36",
      "publish_at": 1680259596002
    }
  }
];
