//! What anyone may read without a token: the public face of a player on a published list (the
//! public notice, R-PUB-1). Name, sex and region only; never an ID number, birth date or phone
//! (R-REG-3).

use super::*;

/// The most ids one call may ask for.
pub const MAX_PUBLIC_PROFILES: usize = 500;

impl RegistrationApi {
    pub(super) async fn public_profiles_impl(
        &self,
        req: pb::GetPublicProfilesRequest,
    ) -> Result<pb::GetPublicProfilesResponse> {
        if req.player_ids.len() > MAX_PUBLIC_PROFILES {
            return Err(invalid(
                "player_ids",
                format!("at most {MAX_PUBLIC_PROFILES} ids a call"),
            ));
        }
        let mut ids = req.player_ids;
        ids.sort();
        ids.dedup();
        let rows = player::Entity::find()
            .filter(player::Column::Id.is_in(ids))
            .order_by_asc(player::Column::Id)
            .all(&self.db)
            .await?;
        Ok(pb::GetPublicProfilesResponse {
            profiles: rows
                .iter()
                .map(|row| pb::PublicProfile {
                    player_id: row.id.clone(),
                    name: row.name.clone(),
                    sex: sex_to_pb(&row.sex) as i32,
                    region_name: row
                        .region_code
                        .as_deref()
                        .and_then(region::by_code)
                        .map(|r| r.name_zh.to_owned())
                        .unwrap_or_default(),
                })
                .collect(),
        })
    }
}
