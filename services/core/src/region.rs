//! Province-level regions (省级行政区) by the first two digits of a resident ID (R-REG-3, R-TEAM-2,
//! R-TEAM-3). Every code here is a team region in every preset.

/// A province-level region.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Region {
    /// Two-digit code, e.g. "33".
    pub code: &'static str,
    pub name_zh: &'static str,
    pub name_en: &'static str,
}

const fn r(code: &'static str, name_zh: &'static str, name_en: &'static str) -> Region {
    Region {
        code,
        name_zh,
        name_en,
    }
}

/// All province-level codes of GB/T 2260, plus 71 Taiwan, 81 Hong Kong, 82 Macau, and 83, which the
/// residence permits of Taiwan residents use (its holders belong to the Taiwan team region, 71).
pub const REGIONS: &[Region] = &[
    r("11", "北京市", "Beijing"),
    r("12", "天津市", "Tianjin"),
    r("13", "河北省", "Hebei"),
    r("14", "山西省", "Shanxi"),
    r("15", "内蒙古自治区", "Inner Mongolia"),
    r("21", "辽宁省", "Liaoning"),
    r("22", "吉林省", "Jilin"),
    r("23", "黑龙江省", "Heilongjiang"),
    r("31", "上海市", "Shanghai"),
    r("32", "江苏省", "Jiangsu"),
    r("33", "浙江省", "Zhejiang"),
    r("34", "安徽省", "Anhui"),
    r("35", "福建省", "Fujian"),
    r("36", "江西省", "Jiangxi"),
    r("37", "山东省", "Shandong"),
    r("41", "河南省", "Henan"),
    r("42", "湖北省", "Hubei"),
    r("43", "湖南省", "Hunan"),
    r("44", "广东省", "Guangdong"),
    r("45", "广西壮族自治区", "Guangxi"),
    r("46", "海南省", "Hainan"),
    r("50", "重庆市", "Chongqing"),
    r("51", "四川省", "Sichuan"),
    r("52", "贵州省", "Guizhou"),
    r("53", "云南省", "Yunnan"),
    r("54", "西藏自治区", "Tibet"),
    r("61", "陕西省", "Shaanxi"),
    r("62", "甘肃省", "Gansu"),
    r("63", "青海省", "Qinghai"),
    r("64", "宁夏回族自治区", "Ningxia"),
    r("65", "新疆维吾尔自治区", "Xinjiang"),
    r("71", "台湾省", "Taiwan"),
    r("81", "香港特别行政区", "Hong Kong"),
    r("82", "澳门特别行政区", "Macau"),
    r("83", "台湾省", "Taiwan"),
];

/// The region for a two-digit code, if it is province-level.
pub fn by_code(code: &str) -> Option<Region> {
    REGIONS.iter().copied().find(|r| r.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_team_2_every_province_level_region_is_known() {
        // 23 provinces (with Taiwan), 4 municipalities, 5 autonomous regions, 2 SARs = 34, plus code 83.
        assert_eq!(REGIONS.len(), 35);
        for code in ["11", "12", "31", "50", "33", "71", "81", "82", "65"] {
            assert!(by_code(code).is_some(), "{code}");
        }
        for code in ["00", "10", "16", "24", "47", "55", "66", "72", "84", "91"] {
            assert!(by_code(code).is_none(), "{code}");
        }
    }

    #[test]
    fn r_team_3_codes_are_unique() {
        let mut codes: Vec<_> = REGIONS.iter().map(|r| r.code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), REGIONS.len());
    }
}
